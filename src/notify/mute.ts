// `notify mute [DURATION]` and `notify unmute`: while muted, no notification goes out on any channel (desktop, terminal,
// tmux, bell, webhooks). The notifier still marks each change handled, so unmuting never replays what came meanwhile.
// Kept in the state dir (`<state>/notify/mute.json`), beside the marks of handled changes: it is this machine's
// state, not a setting to keep in a dotfiles repository.
import { rmSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { notifyDirOf } from "../store/notify-ledger.ts";
import { ensurePrivateDir } from "../store/paths.ts";
import { readJsonFile, writeJsonAtomic } from "../store/records.ts";

const MuteSchema = z.strictObject({
  schema_version: z.literal(1),
  since: z.string(),
  /** Until when; null: until `notify unmute`. */
  until: z.nullable(z.string()),
});

export type MuteState = { readonly muted: false } | { readonly muted: true; readonly since: string; readonly until: string | null };

const mutePath = (stateDir: string) => join(notifyDirOf(stateDir), "mute.json");

/** Is everything muted now? A mute whose time is over, or a file that does not parse, is no mute. */
export function muteState(stateDir: string, now: number): MuteState {
  const file = readJsonFile(mutePath(stateDir), 1024);
  if (file.kind !== "json") return { muted: false };
  const parsed = MuteSchema.safeParse(file.value);
  if (!parsed.success) return { muted: false };
  const { since, until } = parsed.data;
  if (until !== null && !(Date.parse(until) > now)) return { muted: false };
  return { muted: true, since, until };
}

/** Mute every channel for `ms` milliseconds (undefined: until unmuted). */
export function mute(
  stateDir: string,
  now: number,
  ms: number | undefined,
): { ok: true; state: MuteState } | { ok: false; detail: string } {
  for (const dir of [stateDir, notifyDirOf(stateDir)]) {
    const check = ensurePrivateDir(dir);
    if (!check.ok) return { ok: false, detail: check.detail };
  }
  const state = {
    schema_version: 1,
    since: new Date(now).toISOString(),
    until: ms === undefined ? null : new Date(now + ms).toISOString(),
  } as const;
  const written = writeJsonAtomic(mutePath(stateDir), state, 1024);
  return written.ok ? { ok: true, state: { muted: true, since: state.since, until: state.until } } : { ok: false, detail: written.detail };
}

export function unmute(stateDir: string): void {
  rmSync(mutePath(stateDir), { force: true });
}

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Longer than anyone mutes on purpose: past it, a typo (`30d` for `30m`) is more likely. */
const MAX_MUTE_MS = 30 * 86_400_000;

/** `90s`, `30m`, `2h`, `1h30m`, `1d`, or a plain number of minutes; undefined when it is none of those. */
export function parseDuration(text: string): number | undefined {
  if (/^\d{1,6}$/.test(text)) {
    const ms = Number(text) * 60_000;
    return ms > 0 && ms <= MAX_MUTE_MS ? ms : undefined;
  }
  if (!/^(\d{1,6}[smhd])+$/.test(text)) return undefined;
  let ms = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)([smhd])/g)) ms += Number(count) * (UNITS[unit as string] as number);
  return ms > 0 && ms <= MAX_MUTE_MS ? ms : undefined;
}

/** `14:05 (in 1h 2m)`, or `until unmuted`. */
export function describeMute(state: MuteState, now: number): string {
  if (!state.muted) return "not muted";
  if (state.until === null) return "muted until `tongs-agents notify unmute`";
  const left = Math.max(0, Date.parse(state.until) - now);
  const minutes = Math.ceil(left / 60_000);
  const span = minutes >= 60 ? `${Math.floor(minutes / 60)}h ${minutes % 60}m` : `${minutes}m`;
  return `muted until ${state.until} (${span} left)`;
}
