// Process facts the hook and the CLI need: name, parent, arguments, controlling tty and a process-start token that
// tells a live process from a later one that reused its PID. Linux reads /proc; macOS asks `ps`.
import { closeSync, constants, open, openSync, read, readFileSync, readlinkSync, readSync } from "node:fs";
import { basename } from "node:path";
import { runsNodeScript, type NodeScripts, type ScriptWorld } from "./node-script.ts";

/** What can be learned about a process without waiting on it. */
export interface ProcessBasics {
  readonly pid: number;
  readonly ppid: number;
  /** Kernel process name (Linux comm, at most 15 bytes; macOS: basename of the executable). */
  readonly comm: string;
  /** Executable path when readable (Linux /proc/PID/exe). */
  readonly exe: string | undefined;
  /** Stable for the life of one process, different for a later process with the same PID. */
  readonly startToken: string;
  /** Controlling terminal device path, e.g. /dev/pts/3, when it can be named. */
  readonly tty: string | undefined;
}

export interface ProcessInfo extends ProcessBasics {
  readonly argv: readonly string[];
}

export interface ProcessSource {
  basics(pid: number): Promise<ProcessBasics | undefined>;
  /** The start token alone, where it costs less than `basics` (Linux: the stat line only): what a liveness check needs. */
  startToken?(pid: number): Promise<string | undefined>;
  /** Arguments may take the target's locks (Linux reads its memory): callers bound the wait. */
  argv(pid: number): Promise<readonly string[] | undefined>;
}

/** Split `/proc/PID/stat`. The comm may contain spaces and parentheses ("tmux: client"), so cut at the last ")". */
export function parseProcStat(
  stat: string,
): { comm: string; state: string; ppid: number; ttyNr: number; flags: number; startTime: string } | undefined {
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const fields = stat.slice(close + 2).split(" ");
  // After the comm: state(3) ppid(4) pgrp(5) session(6) tty_nr(7) tpgid(8) flags(9) ... starttime(22); fields[0] is field 3.
  const ppid = Number(fields[1]);
  const ttyNr = Number(fields[4]);
  const flags = Number(fields[6]);
  const startTime = fields[19];
  if (
    !Number.isInteger(ppid) ||
    !Number.isInteger(ttyNr) ||
    !Number.isInteger(flags) ||
    startTime === undefined ||
    !/^\d+$/.test(startTime)
  )
    return undefined;
  return { comm: stat.slice(open + 1, close), state: fields[0] ?? "", ppid, ttyNr, flags, startTime };
}

/** Name a Linux tty_nr: Unix98 ptys (majors 136-143) and virtual consoles (major 4, minors 1-63). */
export function ttyNameFromNr(ttyNr: number): string | undefined {
  if (ttyNr <= 0) return undefined;
  const major = (ttyNr >> 8) & 0xfff;
  const minor = (ttyNr & 0xff) | ((ttyNr >> 12) & 0xfff00);
  if (major >= 136 && major <= 143) return `/dev/pts/${(major - 136) * 256 + minor}`;
  if (major === 4 && minor >= 1 && minor < 64) return `/dev/tty${minor}`;
  return undefined;
}

/** A small /proc file (stat, status), read at once; O_NONBLOCK: a FIFO where a file should be fails instead of blocking. */
export function readProcFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const buffer = Buffer.alloc(4096);
    const length = readSync(fd, buffer, 0, buffer.length, null);
    return buffer.toString("utf8", 0, length);
  } finally {
    closeSync(fd);
  }
}

/** Arguments past this are not needed to tell a harness (its name, its script, Codex's daemon flag come first). */
const CMDLINE_BYTES = 64 * 1024;

function readOr<T, F>(attempt: () => T, fallback: F): T | F {
  try {
    return attempt();
  } catch {
    return fallback;
  }
}

/**
 * The start token of the process running with this PID now (Linux), undefined when none runs (or a zombie): what
 * `basics` gives, without the rest, for a caller that cannot wait (record-cache.ts, the sessions index).
 */
export function linuxStartToken(pid: number, procRoot = "/proc"): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const parsed = readOr(() => parseProcStat(readProcFile(`${procRoot}/${pid}/stat`)), undefined);
  if (!parsed || parsed.state === "Z" || parsed.state === "X") return undefined;
  return linuxStartTokenOf(procRoot, parsed.startTime);
}

/** The start token of a process that started `startTime` clock ticks after this boot of the system `procRoot` shows. */
export function linuxStartTokenOf(procRoot: string, startTime: string): string {
  return `linux:${bootIdOf(procRoot)}:${startTime}`;
}

const bootIds = new Map<string, string>();
function bootIdOf(procRoot: string): string {
  let id = bootIds.get(procRoot);
  if (id === undefined) {
    id = readOr(() => readFileSync(`${procRoot}/sys/kernel/random/boot_id`, "utf8").trim(), "unknown-boot");
    bootIds.set(procRoot, id);
  }
  return id;
}

/**
 * /proc/PID/stat and the exe link are read synchronously: they never wait on the target process, and under CPU
 * contention (dozens of hooks on two cores) every asynchronous hop costs a trip through the run queue.
 * /proc/PID/cmdline takes the target's memory-map lock, so it is read asynchronously, where a deadline can win.
 */
export function linuxProcessSource(procRoot = "/proc"): ProcessSource {
  const valid = (pid: number) => Number.isInteger(pid) && pid > 0;
  return {
    async startToken(pid) {
      return valid(pid) ? linuxStartToken(pid, procRoot) : undefined;
    },
    async basics(pid) {
      if (!valid(pid)) return undefined;
      const dir = `${procRoot}/${pid}`;
      // O_NONBLOCK: a FIFO where a file should be (a test's stand-in for a hung read) fails instead of blocking.
      const parsed = readOr(() => parseProcStat(readProcFile(`${dir}/stat`)), undefined);
      // A zombie (Z) or dead (X) process has exited; only its PID is still held until its parent reaps it.
      if (!parsed || parsed.state === "Z" || parsed.state === "X") return undefined;
      const exe = readOr(() => readlinkSync(`${dir}/exe`), undefined);
      return {
        pid,
        ppid: parsed.ppid,
        comm: parsed.comm,
        exe: exe?.replace(/ \(deleted\)$/, ""),
        startToken: linuxStartTokenOf(procRoot, parsed.startTime),
        tty: ttyNameFromNr(parsed.ttyNr),
      };
    },
    async argv(pid) {
      if (!valid(pid)) return undefined;
      // Two trips to the thread pool, open and one read (readFile makes five: open, fstat, two reads, close), so a
      // process descheduled under load loses little time here. Both can wait (a FIFO stand-in blocks in open).
      const fd = await new Promise<number | undefined>((resolve) =>
        open(`${procRoot}/${pid}/cmdline`, constants.O_RDONLY, (error, opened) => resolve(error ? undefined : opened)),
      );
      if (fd === undefined) return undefined;
      const buffer = Buffer.alloc(CMDLINE_BYTES);
      const length = await new Promise<number | undefined>((resolve) =>
        read(fd, buffer, 0, buffer.length, 0, (error, bytes) => {
          closeSync(fd);
          resolve(error ? undefined : bytes);
        }),
      );
      if (length === undefined) return undefined;
      const argv = buffer.toString("utf8", 0, length).split("\0");
      if (argv.at(-1) === "") argv.pop();
      return argv;
    },
  };
}

/** The start token of the process running with this PID now, undefined when none runs. */
export function startTokenOf(source: ProcessSource, pid: number): Promise<string | undefined> {
  return source.startToken ? source.startToken(pid) : source.basics(pid).then((basics) => basics?.startToken);
}

export type RunCommand = (file: string, args: readonly string[]) => Promise<{ stdout: string; ok: boolean }>;

// The process runner is loaded only where it is used (macOS): the hook on Linux never pays for it. LC_ALL=C: `ps`
// prints its start time in the caller's locale otherwise, and that text is parsed below.
const runBounded: RunCommand = async (file, args) => {
  const { run } = await import("./exec.ts");
  const result = await run(file, args, { timeoutMs: 1000, env: { ...process.env, LC_ALL: "C" } });
  return { stdout: result.stdout, ok: result.ok };
};

/**
 * Parse `ps -o pid=,ppid=,tty=,lstart=,comm= -p PID` as printed on macOS, e.g.
 * `  812   801 ttys003  Sat Nov 28 09:14:02 2026     /Users/u/.local/bin/claude`.
 * lstart has one-second resolution; a PID reused within the same second would not be told apart.
 */
export function parseDarwinPs(line: string): { pid: number; ppid: number; tty: string; lstart: string; comm: string } | undefined {
  const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\w{3} \w{3}\s+\d{1,2} \d{2}:\d{2}:\d{2} \d{4})\s+(.+?)\s*$/.exec(line);
  if (!match) return undefined;
  const [, pid, ppid, tty, lstart, comm] = match as unknown as [string, string, string, string, string, string];
  return { pid: Number(pid), ppid: Number(ppid), tty, lstart: lstart.replace(/\s+/g, " "), comm };
}

export function darwinProcessSource(run: RunCommand = runBounded): ProcessSource {
  return {
    async basics(pid) {
      if (!Number.isInteger(pid) || pid <= 0) return undefined;
      const stat = await run("ps", ["-o", "pid=,ppid=,tty=,lstart=,comm=", "-p", String(pid)]);
      const parsed = stat.ok ? parseDarwinPs(stat.stdout.split("\n")[0] ?? "") : undefined;
      if (!parsed || parsed.pid !== pid) return undefined;
      return {
        pid,
        ppid: parsed.ppid,
        comm: basename(parsed.comm),
        exe: parsed.comm.startsWith("/") ? parsed.comm : undefined,
        startToken: `darwin:${parsed.lstart}`,
        tty: parsed.tty === "??" ? undefined : `/dev/${parsed.tty}`,
      };
    },
    async argv(pid) {
      if (!Number.isInteger(pid) || pid <= 0) return undefined;
      const args = await run("ps", ["-o", "args=", "-p", String(pid)]);
      // ps joins argv with spaces: argv[0] is reliable only up to its first space.
      return args.ok ? args.stdout.trim().split(/\s+/).filter(Boolean) : undefined;
    },
  };
}

export function defaultProcessSource(platform: NodeJS.Platform = process.platform): ProcessSource {
  return platform === "linux" ? linuxProcessSource() : darwinProcessSource();
}

/** Does this process carry one of `names` as its comm or executable basename (argv[0] is checked separately)? */
function namedByKernel(basics: ProcessBasics, names: readonly string[]): boolean {
  return names.includes(basics.comm) || (basics.exe !== undefined && names.includes(basename(basics.exe)));
}

/** Does this process carry one of `names` as its comm, executable basename or argv[0] basename? */
export function matchesProcessName(info: ProcessInfo, names: readonly string[]): boolean {
  return namedByKernel(info, names) || (info.argv[0] !== undefined && names.includes(basename(info.argv[0])));
}

export type AncestorSearch =
  /** `child`: the process below it on the walk (the one the harness spawned), absent when the walk started at it. */
  | { found: true; process: ProcessBasics & { argv?: readonly string[] }; child?: ProcessBasics }
  | { found: false; reason: "not-found" | "timeout" | "unreadable" };

/**
 * The nearest process, from `startPid` (inclusive) upwards, named exactly one of `names`, bounded in depth and by
 * `deadline` (epoch ms). The walk uses the cheap facts (comm, executable); only when no process in the chain carries
 * the name there are the arguments read, all at once, to compare argv[0] (a process that renamed itself). Arguments
 * can wait on the target, so that read loses to the deadline rather than holding the hook. A harness that runs as
 * `node <script>` (node-script.ts) is found in that same read, by the script its node runs, or on the walk when
 * `proven` knows that very process (its PID and start token) from earlier evidence.
 */
export async function findAncestor(
  startPid: number,
  names: readonly string[],
  {
    source,
    deadline,
    maxDepth = 24,
    now = Date.now,
    scripts = [],
    scriptWorld,
    proven,
  }: {
    source: ProcessSource;
    deadline: number;
    maxDepth?: number;
    now?: () => number;
    scripts?: NodeScripts;
    scriptWorld?: ScriptWorld;
    /** A process (by PID and start token) that earlier evidence already showed to be the harness. */
    proven?: (basics: ProcessBasics) => boolean;
  },
): Promise<AncestorSearch> {
  const chain: ProcessBasics[] = [];
  for (let pid = startPid; chain.length < maxDepth && pid > 1;) {
    const basics = await withDeadline(source.basics(pid), deadline - now());
    if (basics === "timeout") return { found: false, reason: "timeout" };
    if (!basics) break;
    if (namedByKernel(basics, names) || proven?.(basics)) return { found: true, process: basics, ...below(chain, chain.length) };
    chain.push(basics);
    pid = basics.ppid;
  }
  if (chain.length === 0) return { found: false, reason: "unreadable" };
  const argvs = await withDeadline(Promise.all(chain.map((basics) => source.argv(basics.pid))), deadline - now());
  if (argvs === "timeout") return { found: false, reason: "timeout" };
  for (const [index, basics] of chain.entries()) {
    const info: ProcessInfo = { ...basics, argv: argvs[index] ?? [] };
    if (matchesProcessName(info, names) || runsNodeScript(basics.pid, info.argv, scripts, scriptWorld))
      return { found: true, process: info, ...below(chain, index) };
  }
  return { found: false, reason: "not-found" };
}

function below(chain: readonly ProcessBasics[], index: number): { child?: ProcessBasics } {
  const child = chain[index - 1];
  return child ? { child } : {};
}

/**
 * Race `promise` against a timer. A promise that is already settled (a synchronous read wrapped in async) still wins
 * when the deadline has passed: a process descheduled under load has not waited on anything, so it does not time out.
 * For the same reason a read that finished while the process was descheduled wins too: timers run before the event
 * loop collects finished I/O, so the timeout is only declared after one more turn (setImmediate runs after that poll).
 */
export async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => setImmediate(() => resolve("timeout")), Math.max(0, ms));
    timer.unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
