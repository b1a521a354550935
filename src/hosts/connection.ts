// The user's own ssh connection to a host, found from exact process evidence: a local process named `ssh`, on a
// terminal, whose arguments name exactly the host's destination (parsed with ssh's own option grammar, never a
// substring match). Its environment says which local terminal, tab or tmux pane it runs in.
import type { ProcessSource } from "../core/proc.ts";
import type { ListProcesses } from "../core/process-table.ts";
import type { HostEntry } from "./config.ts";

/** ssh's options that take an argument (OpenSSH getopt string "b:c:D:E:e:F:I:i:J:L:l:m:O:o:p:Q:R:S:W:w:B:P:"). */
const WITH_ARGUMENT = new Set("bcDEeFIiJLlmOopQRSWwBP");

export interface SshInvocation {
  readonly destination: string;
  /** The remote command words, empty for an interactive login. */
  readonly command: readonly string[];
  /** -O (control a master), -N (no command), -f (background), -W (stdio forward): not a terminal session. */
  readonly background: boolean;
}

/** Read an ssh argv the way ssh does; undefined when it names no destination. */
export function parseSshArgv(argv: readonly string[]): SshInvocation | undefined {
  let background = false;
  for (let index = 1; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === "--") return at(argv, index + 1, background);
    if (!arg.startsWith("-") || arg === "-") return at(argv, index, background);
    for (let char = 1; char < arg.length; char++) {
      const flag = arg[char] as string;
      if ("NfOW".includes(flag)) background = true;
      if (WITH_ARGUMENT.has(flag)) {
        if (char === arg.length - 1) index++; // the argument is the next word
        break;
      }
    }
  }
  return undefined;
}

function at(argv: readonly string[], index: number, background: boolean): SshInvocation | undefined {
  const destination = argv[index];
  return destination === undefined ? undefined : { destination, command: argv.slice(index + 1), background };
}

export interface Connection {
  readonly pid: number;
  readonly tty: string;
  readonly argv: readonly string[];
}

export interface ConnectionWorld {
  readonly processes: ProcessSource;
  readonly listProcesses: ListProcesses;
}

/** Interactive ssh processes to exactly this host's destination, on a terminal, oldest PID first. */
export async function findConnections(host: HostEntry, { processes, listProcesses }: ConnectionWorld): Promise<Connection[]> {
  const listed = await listProcesses();
  const found: Connection[] = [];
  for (const proc of listed) {
    if (proc.name !== "ssh") continue;
    const [argv, basics] = await Promise.all([processes.argv(proc.pid), processes.basics(proc.pid)]);
    if (!argv || !basics?.tty) continue;
    const invocation = parseSshArgv(argv);
    if (!invocation || invocation.background || invocation.destination !== host.destination) continue;
    found.push({ pid: proc.pid, tty: basics.tty, argv });
  }
  return found.sort((a, b) => a.pid - b.pid);
}

/** What the user can run to attach to the host's tmux, when no connection is open. */
export function attachCommand(host: HostEntry): string {
  return `ssh -t ${host.destination} tmux attach`;
}
