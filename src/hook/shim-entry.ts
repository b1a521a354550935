// What the hook shim (bin/tongs-agents-hook.sh) leaves for the worker: one file per event in `<state>/incoming/`, named
// `<start>-<pid>.ev` after the shim's own spawn evidence (start time in clock ticks, PID), holding the shim's parent
// PID and the /proc stat lines of the shim and of every ancestor as they were before the shim returned (the payload is
// the worker's stdin, handed over by the shim). The worker reads identity from those captured lines, never from a walk done later, when the
// shim is gone and its parent may be too (docs/contract.md, "The hook shim").
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, constants } from "node:fs";
import { basename, dirname, join } from "node:path";
import { compareStarts } from "../core/spawn-order.ts";
import { linuxProcessSource, parseProcStat, ttyNameFromNr, type ProcessBasics, type ProcessSource } from "../core/proc.ts";

export const SHIM_SPOOL_DIR = "incoming";
const HEADER = "tongs-agents-spool 1";
const NAME = /^(\d+)-(\d+)\.ev$/;

export interface ShimEntry {
  /** The shim's parent: where the ancestry walk starts. */
  readonly ppid: number;
  /** The shim itself. */
  readonly pid: number;
  /** Stat lines by PID, as captured by the shim. */
  readonly stats: ReadonlyMap<number, string>;
}

export type ShimEntryRead = { ok: true; entry: ShimEntry } | { ok: false; detail: string };

/** Parse an entry's bytes. */
export function parseShimEntry(bytes: Buffer): ShimEntryRead {
  let at = 0;
  const line = (): string | undefined => {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) return undefined;
    const text = bytes.toString("utf8", at, end);
    at = end + 1;
    return text;
  };
  if (line() !== HEADER) return { ok: false, detail: "not a shim spool entry" };
  const ppid = Number(line());
  const count = Number(line());
  if (!Number.isInteger(ppid) || ppid < 1 || !Number.isInteger(count) || count < 1 || count > 64)
    return { ok: false, detail: "malformed shim spool header" };
  const stats = new Map<number, string>();
  let pid = 0;
  for (let index = 0; index < count; index++) {
    const stat = line();
    if (stat === undefined) return { ok: false, detail: "shim spool entry cut in its stat lines" };
    const owner = Number(stat.slice(0, stat.indexOf(" ")));
    // A line that does not parse (a command name holding a newline) ends the captured chain there.
    if (!Number.isInteger(owner) || parseProcStat(stat) === undefined) break;
    if (index === 0) pid = owner;
    stats.set(owner, stat);
  }
  if (pid === 0) return { ok: false, detail: "shim spool entry without the shim's own stat line" };
  return { ok: true, entry: { ppid, pid, stats } };
}

/** Read an entry file, refusing anything but a regular file (never through a symlink), up to `maxBytes`. */
export function readShimEntry(path: string, maxBytes: number): ShimEntryRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, detail: `cannot open ${basename(path)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, detail: `${basename(path)} is not a regular file` };
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes));
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return parseShimEntry(buffer.subarray(0, length));
  } finally {
    closeSync(fd);
  }
}

/**
 * The processes as the shim saw them. The kernel facts (name, parent, start time, tty) come from the captured lines;
 * what the shim could not read without starting a program (the executable link, the arguments) is read live only when
 * the live process has the captured start time, i.e. is provably the same process and not a later one with its PID.
 */
export function capturedProcessSource(
  stats: ReadonlyMap<number, string>,
  { live = linuxProcessSource(), bootId }: { live?: ProcessSource; bootId: string },
): ProcessSource {
  const captured = (pid: number): ProcessBasics | undefined => {
    const line = stats.get(pid);
    const parsed = line === undefined ? undefined : parseProcStat(line);
    if (!parsed) return undefined;
    return {
      pid,
      ppid: parsed.ppid,
      comm: parsed.comm,
      exe: undefined,
      startToken: `linux:${bootId}:${parsed.startTime}`,
      tty: ttyNameFromNr(parsed.ttyNr),
    };
  };
  const same = async (pid: number, token: string) => (await live.basics(pid))?.startToken === token;
  return {
    async basics(pid) {
      const then = captured(pid);
      if (!then) return undefined;
      const now = await live.basics(pid);
      return now?.startToken === then.startToken ? { ...then, exe: now.exe } : then;
    },
    async argv(pid) {
      const then = captured(pid);
      if (!then || !(await same(pid, then.startToken))) return undefined;
      const argv = await live.argv(pid);
      // Checked again after the read: the process may have exited and its PID been reused meanwhile.
      return argv !== undefined && (await same(pid, then.startToken)) ? argv : undefined;
    },
  };
}

/** The spawn order of an entry from its file name, or undefined for a name that is not an entry's. */
export function entryOrder(name: string): { spawn_start: number; spawn_pid: number } | undefined {
  const match = NAME.exec(name);
  return match ? { spawn_start: Number(match[1]), spawn_pid: Number(match[2]) } : undefined;
}

export interface SpoolScan {
  /** Entries spawned before this one, touched within `staleMs` (young, or their worker is alive): applied first. */
  readonly earlier: string[];
  /** Entries (of any order) untouched for `abandonedMs`: their worker never ran or died. */
  readonly abandoned: string[];
}

/** What else is in the spool of the entry at `path`, by name and modification time (paths). */
export function scanSpool(
  path: string,
  { now = Date.now(), staleMs, abandonedMs }: { now?: number; staleMs: number; abandonedMs: number },
): SpoolScan {
  const scan: SpoolScan = { earlier: [], abandoned: [] };
  const mine = entryOrder(basename(path));
  if (!mine) return scan;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return scan;
  }
  for (const name of names) {
    const order = entryOrder(name);
    if (!order || name === basename(path)) continue;
    const other = join(dirname(path), name);
    const stats = lstatSync(other, { throwIfNoEntry: false });
    if (stats === undefined) continue;
    const age = now - stats.mtimeMs;
    if (age >= abandonedMs) scan.abandoned.push(other);
    else if (age < staleMs && compareStarts(order, mine) < 0) scan.earlier.push(other);
  }
  return scan;
}

/**
 * When the harness fired the hook, as epoch milliseconds: the shim's start time (clock ticks since boot, 100 a second
 * on Linux) against the system's uptime now (same clock, 10 ms resolution). The worker applies the event at this
 * time, as the synchronous hook would have, so a fact the harness states in its own files after firing the hook (a
 * failed turn in Codex's rollout) still counts as later than the event. Both readings are cut to 10 ms, so their
 * difference can be 10 ms off either way: the answer is taken 10 ms earlier, never later than the real start (a fact
 * stated within those milliseconds after it would otherwise count as older than the event, and be lost).
 */
/** The resolution of both clocks firedAt reads. */
const TICK_MS = 10;

export function firedAt(
  entry: ShimEntry,
  { now = Date.now(), uptimeSeconds }: { now?: number; uptimeSeconds: number },
): number | undefined {
  const stat = entry.stats.get(entry.pid);
  const start = stat === undefined ? undefined : Number(parseProcStat(stat)?.startTime);
  if (start === undefined || !Number.isFinite(start)) return undefined;
  const ago = uptimeSeconds * 1000 - start * 10;
  return ago >= 0 ? now - ago - TICK_MS : undefined;
}
