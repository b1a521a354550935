// The process table: every process of this user, for process discovery, locating a Codex UI and finding SSH
// connections. On Linux it is read from /proc in this process, one pass for everything the callers use (PID, parent,
// name, arguments, start token, terminal), instead of starting `ps` twice through ps-list; where /proc cannot be listed
// (macOS) ps-list runs as before.
import { closeSync, constants, open, read, readdirSync, readlinkSync, statSync } from "node:fs";
import { basename } from "node:path";
import { linuxStartTokenOf, parseProcStat, readProcFile, ttyNameFromNr } from "./proc.ts";

/** One process as the table lists it; what only /proc gives is absent where `ps` made the list. */
export interface ListedProcess {
  readonly pid: number;
  readonly ppid?: number | undefined;
  /** The executable's basename when its link can be read, else the kernel's comm (as ps-list names a process). */
  readonly name: string;
  /** The arguments joined by spaces, as `ps -o args` prints them. */
  readonly cmd?: string | undefined;
  /** The arguments exactly (Linux): a path with a space in it stays one argument. */
  readonly argv?: readonly string[] | undefined;
  /** The kernel's process name (Linux comm, at most 15 bytes). */
  readonly comm?: string | undefined;
  /** What proc.ts ProcessBasics gives: set where /proc was read. */
  readonly startToken?: string | undefined;
  readonly tty?: string | undefined;
}

export type ListProcesses = () => Promise<readonly ListedProcess[]>;

/** Arguments past this are not needed to tell a harness (its name, its script, Codex's daemon flag come first). */
const CMDLINE_BYTES = 64 * 1024;
/** A kernel thread (PF_KTHREAD in /proc/PID/stat's flags): no user-space program, never an agent. */
const PF_KTHREAD = 0x00200000;

/** `/proc/PID/cmdline`: arguments separated by NULs; text that is not UTF-8 is kept as replacement characters. */
export function parseCmdline(bytes: Buffer): string[] {
  if (bytes.length === 0) return [];
  const argv = bytes.toString("utf8").split("\0");
  if (argv.at(-1) === "") argv.pop();
  return argv;
}

/**
 * `/proc/PID/cmdline` is read through the thread pool: it takes the target's memory-map lock, which a process can hold
 * for long (a fault on a hung network filesystem), and such a read must lose to the caller's deadline (discovery's
 * bound), not hold the caller. One read: the kernel copies the whole command line up to the buffer's size.
 */
function readCmdline(path: string): Promise<Buffer | undefined> {
  return new Promise((resolve) =>
    open(path, constants.O_RDONLY | constants.O_NONBLOCK, (openError, fd) => {
      if (openError) return resolve(undefined);
      const buffer = Buffer.allocUnsafe(CMDLINE_BYTES);
      read(fd, buffer, 0, buffer.length, 0, (readError, length) => {
        closeSync(fd);
        resolve(readError ? undefined : buffer.subarray(0, length));
      });
    }),
  );
}

/**
 * Is `/proc/PID` a process of `euid`, as `ps x` selects them? The directory belongs to the process's effective user,
 * except for a process that made itself non-dumpable (ssh-agent, some setuid programs): its directory belongs to root,
 * and its status file says whose it is.
 */
function ownedBy(dir: string, euid: number): boolean {
  const owner = statSync(dir).uid;
  if (owner === euid || owner !== 0) return owner === euid;
  const status = readProcFile(`${dir}/status`);
  const effective = /^Uid:\s+\d+\s+(\d+)/m.exec(status)?.[1];
  return effective !== undefined && Number(effective) === euid;
}

/**
 * Every live process of `euid` in `procRoot`, or undefined when the directory cannot be listed. A process that ends
 * while it is read is left out (each of its files can vanish between the listing and the read); zombies (they run no
 * code, only their PID is held until their parent reaps them) and kernel threads are left out too.
 */
export async function readLinuxProcessTable({
  procRoot = "/proc",
  euid = process.geteuid?.() ?? 0,
}: { procRoot?: string; euid?: number } = {}): Promise<ListedProcess[] | undefined> {
  let names: string[];
  try {
    names = readdirSync(procRoot);
  } catch {
    return undefined;
  }
  const rows = names.map(async (name): Promise<ListedProcess | undefined> => {
    if (!/^[1-9]\d*$/.test(name)) return undefined;
    const dir = `${procRoot}/${name}`;
    // The stat line, status and the executable link never wait on the process: read at once.
    let stat: ReturnType<typeof parseProcStat>;
    let exe: string | undefined;
    try {
      if (!ownedBy(dir, euid)) return undefined;
      stat = parseProcStat(readProcFile(`${dir}/stat`));
      if (!stat || stat.state === "Z" || stat.state === "X" || (stat.flags & PF_KTHREAD) !== 0) return undefined;
      exe = readlinkSync(`${dir}/exe`).replace(/ \(deleted\)$/, "");
    } catch {
      if (!stat) return undefined; // gone between the listing and this read
      exe = undefined; // no executable link to read: named by its comm
    }
    const cmdline = await readCmdline(`${dir}/cmdline`);
    if (cmdline === undefined) return undefined;
    const argv = parseCmdline(cmdline);
    return {
      pid: Number(name),
      ppid: stat.ppid,
      name: exe === undefined ? stat.comm : basename(exe),
      // As ps-list gives it: a process that rewrote its arguments in place (its title) may leave spaces at the end.
      cmd: argv.join(" ").trimEnd(),
      argv,
      comm: stat.comm,
      startToken: linuxStartTokenOf(procRoot, stat.startTime),
      tty: ttyNameFromNr(stat.ttyNr),
    };
  });
  return (await Promise.all(rows)).filter((row) => row !== undefined);
}

const psListTable: ListProcesses = async () => (await import("ps-list")).default({ all: false });

/**
 * The table of this user's processes: /proc where it can be listed, else `ps` (through ps-list, loaded only then).
 * Each call reads it afresh: the picker, `list --watch` and the MCP server list again and again in one process, and
 * a listing asks once (discovery); only focus on a Codex daemon's session or an SSH host asks twice, a /proc read each.
 */
export function processTable({
  platform = process.platform,
  procRoot = "/proc",
  fallback = psListTable,
}: { platform?: NodeJS.Platform; procRoot?: string; fallback?: ListProcesses } = {}): ListProcesses {
  return async () => (platform === "linux" ? await readLinuxProcessTable({ procRoot }) : undefined) ?? (await fallback());
}
