// Process discovery: running harness processes that have no record yet, found by exact process name: the built-in
// harnesses' and those of the agents declared in config.json (harnesses/declared.ts).
import { basename } from "node:path";
import { readlink } from "node:fs/promises";
import { HARNESSES, hasCapability } from "../harnesses/registry.ts";
import { loadDeclaredAgents } from "../harnesses/declared.ts";
import type { Harness } from "../harnesses/contract.ts";
import { withDeadline, type ProcessBasics, type ProcessSource } from "../core/proc.ts";
import { runsNodeScript, type ScriptWorld } from "../core/node-script.ts";
import { processTable, type ListedProcess, type ListProcesses } from "../core/process-table.ts";

export interface DiscoveredProcess {
  readonly harness: string;
  readonly pid: number;
  readonly startToken: string;
  readonly cwd: string | undefined;
  readonly tty: string | undefined;
  /**
   * A shared daemon of the same harness runs (Codex's app-server): this UI's hooks may be reported by the daemon, whose
   * records carry no terminal, so "no hook events yet" would not be true.
   */
  readonly sharedDaemonRunning: boolean;
}

const DISCOVERY_BOUND_MS = 2000;

/** Built-in harnesses first (a declared agent cannot claim their process names anyway), then the declared ones. */
export function discoverableHarnesses(env: NodeJS.ProcessEnv): Harness[] {
  const declared = loadDeclaredAgents(env).agents.map((agent) => agent.harness);
  return [...(HARNESSES as readonly Harness[]), ...declared].filter((harness) => hasCapability(harness, "discovery"));
}

/** The arguments: exact where /proc was read; `ps` joins them with spaces, so there they are split at every space. */
const argvOf = (proc: ListedProcess): readonly string[] => proc.argv ?? proc.cmd?.split(" ") ?? [];

function harnessOf(proc: ListedProcess, candidates: readonly Harness[], scriptWorld?: ScriptWorld): Harness | undefined {
  const argv = argvOf(proc);
  const argv0 = argv[0];
  const names = [proc.name, argv0 === undefined ? undefined : basename(argv0)];
  return candidates.find(
    (harness) =>
      names.some((name) => name !== undefined && harness.processNames.includes(name)) ||
      // From `ps`, a script path holding a space is not recognised (a miss, never a wrong match).
      (harness.nodeScripts !== undefined && runsNodeScript(proc.pid, argv, harness.nodeScripts, scriptWorld)),
  );
}

function mentionsName(proc: ListedProcess, candidates: readonly Harness[]): boolean {
  const cmd = proc.cmd;
  return cmd !== undefined && candidates.some((harness) => harness.processNames.some((name) => cmd.includes(name)));
}

/**
 * Harness processes by exact name (the listing's name, argv[0] basename, or the kernel's comm) or node script,
 * excluding Codex's shared daemon and helpers whose parent is a process of the same harness; for a node-script harness,
 * which relaunches itself, the innermost process of the chain instead (its hooks run under it). Gives up (returns none)
 * when listing takes longer than two seconds.
 */
export async function discoverProcesses({
  processes,
  list = processTable(),
  env = process.env,
  harnesses = discoverableHarnesses(env),
  scriptWorld,
}: {
  processes: ProcessSource;
  env?: NodeJS.ProcessEnv;
  list?: ListProcesses;
  harnesses?: readonly Harness[];
  scriptWorld?: ScriptWorld;
}): Promise<DiscoveredProcess[]> {
  const listed = await withDeadline(
    list().catch(() => []),
    DISCOVERY_BOUND_MS,
  );
  if (listed === "timeout") return [];
  const byPid = new Map(listed.map((proc) => [proc.pid, proc]));
  const isDaemon = (proc: ListedProcess, harness: Harness) => harness.isSharedDaemon?.(argvOf(proc)) ?? false;
  const daemons = new Set(
    listed.flatMap((proc) =>
      harnesses.filter((harness) => harnessOf(proc, [harness], scriptWorld) && isDaemon(proc, harness)).map((harness) => harness.id),
    ),
  );
  const found: DiscoveredProcess[] = [];
  for (const proc of listed) {
    if (proc.pid === process.pid) continue;
    let harness = harnessOf(proc, harnesses, scriptWorld);
    let info: ProcessBasics | undefined;
    if (!harness && mentionsName(proc, harnesses)) {
      // The listing names a process after its executable (a script: its interpreter), not the kernel's comm, which is
      // the script's own name. A name in the command line only says where to look; the comm decides.
      info = await processes.basics(proc.pid);
      harness = info && harnesses.find((candidate) => candidate.processNames.includes(info?.comm as string));
    }
    if (!harness) continue;
    if (isDaemon(proc, harness)) continue;
    if (harness.nodeScripts !== undefined) {
      if (listed.some((child) => child.ppid === proc.pid && harnessOf(child, [harness], scriptWorld))) continue;
    } else {
      const parent = proc.ppid === undefined ? undefined : byPid.get(proc.ppid);
      if (parent && harnessOf(parent, [harness])) continue;
    }
    info ??= await processes.basics(proc.pid);
    if (!info) continue;
    found.push({
      harness: harness.id,
      pid: proc.pid,
      startToken: info.startToken,
      cwd: process.platform === "linux" ? await readlink(`/proc/${proc.pid}/cwd`).catch(() => undefined) : undefined,
      tty: info.tty,
      sharedDaemonRunning: daemons.has(harness.id),
    });
  }
  return found;
}
