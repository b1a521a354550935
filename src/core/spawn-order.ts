// Which of two session starts in one harness process came later (docs/contract.md, "Session switching"). Two quick
// `/clear`s run two session-start hooks at once; whichever finishes last must not decide which session is live. The
// harness spawns a process for each event in the order the events happen, so the spawn order of those processes is
// evidence of the order of the events: the start time of the process (Linux: field 22 of /proc/PID/stat, in clock
// ticks, 10 ms; macOS: `ps -o lstart`, in seconds), then, within one tick, the PID, which the kernel hands out in
// increasing order until it wraps around at pid_max. An emitter (Pi's bridge) numbers its events instead.
import type { ProcessBasics } from "./proc.ts";
import type { StartOrder } from "./schema.ts";

export interface Spawn {
  /** Process start time: clock ticks since boot (Linux) or seconds since the epoch (macOS). */
  readonly start: number;
  readonly pid: number;
}

/**
 * PIDs handed out within one clock tick differ by far less than this; a larger gap within one tick can only be a
 * wrap-around (pid_max is 32768 by default, up to 4194304), so the smaller PID is then the later process.
 */
const PID_WRAP_GAP = 16_384;

/** The spawn evidence of a process, from its start token (identity.ts), or undefined when the token has none. */
export function spawnOf(basics: Pick<ProcessBasics, "pid" | "startToken">): Spawn | undefined {
  const linux = /^linux:[^:]*:(\d+)$/.exec(basics.startToken);
  if (linux) return { start: Number(linux[1]), pid: basics.pid };
  if (basics.startToken.startsWith("darwin:")) {
    const time = Date.parse(basics.startToken.slice("darwin:".length));
    return Number.isNaN(time) ? undefined : { start: Math.floor(time / 1000), pid: basics.pid };
  }
  return undefined;
}

/**
 * Positive when `a` started after `b`, negative when before, 0 when the evidence cannot tell (equal, or of different
 * kinds: a record written before this evidence existed has none and counts as older than one that has it).
 */
export function compareStarts(a: StartOrder | undefined, b: StartOrder | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  if ("sequence" in a && "sequence" in b) return Math.sign(a.sequence - b.sequence);
  if ("spawn_start" in a && "spawn_start" in b) {
    if (a.spawn_start !== b.spawn_start) return Math.sign(a.spawn_start - b.spawn_start);
    const gap = a.spawn_pid - b.spawn_pid;
    return Math.abs(gap) > PID_WRAP_GAP ? -Math.sign(gap) : Math.sign(gap);
  }
  return 0;
}
