// What the hook shim (bin/tongs-agents-hook.sh) leaves for the drainer: one entry per event in `<state>/incoming/`,
// `<start>-<pid>.ev`, named after the shim's own spawn evidence (start time in clock ticks, PID), holding the shim's
// parent PID, the /proc stat lines of the shim and of every ancestor as they were before the shim returned, the process
// copying the payload from stdin into `<start>-<pid>.in`, the hook's arguments, its working directory and its
// allowlisted environment. The drainer reads identity from those captured lines, never from a walk done later, when
// the shim is gone and its parent may be too (docs/contract.md, "The hook shim").
import { closeSync, fstatSync, openSync, readSync, constants } from "node:fs";
import { basename } from "node:path";
import { TERMINAL_ENV_KEYS } from "../core/terminal.ts";
import { linuxProcessSource, parseProcStat, ttyNameFromNr, type ProcessBasics, type ProcessSource } from "../core/proc.ts";

export const SHIM_SPOOL_DIR = "incoming";
const HEADER = "tongs-agents-spool 2";
const NAME = /^(\d+)-(\d+)\.ev$/;
const END = Buffer.from("\0end\n");

/**
 * The environment the shim captures for its event, in its order (empty means unset): where the agent's terminal is
 * (TERMINAL_ENV_KEYS), launch identity, the switches our code reads, where the user's config is, and what a
 * notification needs to reach the user's desktop or tmux. Nothing else of the agent's environment leaves its process.
 */
export const HOOK_ENV_KEYS = [
  ...TERMINAL_ENV_KEYS,
  "TONGS_AGENTS_LAUNCH_ID",
  "TONGS_AGENTS_PROFILE",
  "TONGS_AGENTS_NOTIFY",
  "TONGS_AGENTS_DEBUG",
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_RUNTIME_DIR",
  "DBUS_SESSION_BUS_ADDRESS",
  "WAYLAND_DISPLAY",
  "PATH",
  "TERM",
  "SSH_CONNECTION",
] as const;
const ENV_KEYS: ReadonlySet<string> = new Set(HOOK_ENV_KEYS);

export interface ShimEntry {
  /** The shim's parent: where the ancestry walk starts. */
  readonly ppid: number;
  /** The shim itself. */
  readonly pid: number;
  /** Stat lines by PID, as captured by the shim. */
  readonly stats: ReadonlyMap<number, string>;
  /** The PIDs captured, the shim first, then its ancestors in order. */
  readonly chain: readonly number[];
  /** The process copying stdin into the payload file, with its start time (none when stdin is a terminal). */
  readonly reader: { readonly pid: number; readonly start: string | undefined } | undefined;
  /** The hook's arguments (alias, --agent, harness). */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The allowlisted variables the agent had set (non-empty). */
  readonly env: Readonly<Record<string, string>>;
}

export type ShimEntryRead = { ok: true; entry: ShimEntry } | { ok: false; incomplete: boolean; detail: string };

/**
 * Parse an entry's bytes. The shim writes the end mark last: an entry without it is `incomplete` (its shim is still
 * writing it, or died doing so); one with it is whole, and anything wrong in it is refused.
 */
export function parseShimEntry(bytes: Buffer): ShimEntryRead {
  if (bytes.length < END.length || !bytes.subarray(bytes.length - END.length).equals(END))
    return { ok: false, incomplete: true, detail: "shim spool entry without its end mark" };
  const refused = (detail: string): ShimEntryRead => ({ ok: false, incomplete: false, detail });
  let at = 0;
  const line = (): string | undefined => {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) return undefined;
    const text = bytes.toString("utf8", at, end);
    at = end + 1;
    return text;
  };
  if (line() !== HEADER) return refused("not a shim spool entry");
  const ppid = Number(line());
  const count = Number(line());
  if (!Number.isInteger(ppid) || ppid < 1 || !Number.isInteger(count) || count < 1 || count > 64)
    return refused("malformed shim spool header");
  const lines: string[] = [];
  for (let index = 0; index < count; index++) lines.push(line() ?? "");
  const reader = parseReader(line() ?? "");
  if (reader === "malformed") return refused("malformed reader line in a shim spool entry");
  const fields = bytes.toString("utf8", at, bytes.length - END.length).split("\0");
  const argc = Number(fields[0]);
  if (!Number.isInteger(argc) || argc < 0 || argc > 16 || fields.length < argc + 2) return refused("malformed shim spool fields");
  const argv = fields.slice(1, argc + 1);
  const cwd = fields[argc + 1] as string;
  const env: Record<string, string> = {};
  for (const field of fields.slice(argc + 2)) {
    const equals = field.indexOf("=");
    const key = field.slice(0, equals);
    if (equals <= 0 || !ENV_KEYS.has(key)) return refused(`unexpected field in a shim spool entry: ${JSON.stringify(key.slice(0, 64))}`);
    if (equals < field.length - 1) env[key] = field.slice(equals + 1);
  }
  const stats = new Map<number, string>();
  const chain: number[] = [];
  for (const stat of lines) {
    const owner = Number(stat.slice(0, stat.indexOf(" ")));
    // A line that does not parse (a command name holding a newline, cut by the shim's read) ends the chain there.
    if (!Number.isInteger(owner) || parseProcStat(stat) === undefined) break;
    stats.set(owner, stat);
    chain.push(owner);
  }
  if (chain.length === 0) return refused("shim spool entry without the shim's own stat line");
  return { ok: true, entry: { ppid, pid: chain[0] as number, stats, chain, reader, argv, cwd, env } };
}

function parseReader(text: string): ShimEntry["reader"] | "malformed" {
  if (text === "none") return undefined;
  const match = /^(\d+) (-|\d+)$/.exec(text);
  if (!match) return "malformed";
  return { pid: Number(match[1]), start: match[2] === "-" ? undefined : match[2] };
}

/** Read a file of the spool, refusing anything but a regular file (never through a symlink), up to `maxBytes`. */
export function readSpoolFile(
  path: string,
  maxBytes: number,
): { ok: true; bytes: Buffer; size: number } | { ok: false; detail: string; absent: boolean } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, detail: `cannot open ${basename(path)}: ${code ?? String(error)}`, absent: code === "ENOENT" };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, detail: `${basename(path)} is not a regular file`, absent: false };
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes));
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return { ok: true, bytes: buffer.subarray(0, length), size: stats.size };
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
