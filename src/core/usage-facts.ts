// What a harness states about a session beside its turn state, read from files it writes itself (its transcript; for
// Claude Code also the status-line input): the model in use, how full the context is and the window where stated,
// tokens, how much of each quota window is used and when it resets, the reset of a limit that ended the turn, and the
// last compaction (docs/limits.md). Nothing here is estimated: a field the harness does not state stays absent, and
// readers show `—`. The reader's state between reads (store/transcript-cursor.ts) keeps these facts beside its
// cursor, so a line counts once however often and by however many readers the file is read.
import * as z from "zod/mini";
import { lazySchema } from "./lazy-schema.ts";

const count = () => z.int().check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER));
const iso = () => z.string().check(z.maxLength(40));
const word = (max: number) => z.string().check(z.maxLength(max));

/** One quota window: how much of it is used, as a percentage the harness states, and when it resets. */
export const QuotaWindowSchema = lazySchema(() =>
  z.object({
    /** The harness's name for it: `five_hour`, `seven_day` (Claude Code), `primary`, `secondary` (Codex). */
    name: word(64),
    used_percent: z.number().check(z.gte(0), z.lte(1000)),
    resets_at: z.optional(iso()),
    /** The window's length, where stated (Codex's `window_minutes`). */
    window_minutes: z.optional(count()),
    /** When the harness stated it. */
    at: iso(),
  }),
);
export type QuotaWindow = z.infer<typeof QuotaWindowSchema>;

/** Token counts, summed per message (Claude Code) or as the harness totals them (Codex). */
export const TokenCountsSchema = lazySchema(() =>
  z.object({
    input: count(),
    output: count(),
    cache_read: count(),
    cache_write: count(),
    /** False when the reader first saw the file past its start: earlier messages are not counted. */
    complete: z.boolean(),
  }),
);
export type TokenCounts = z.infer<typeof TokenCountsSchema>;

/** A message's usage as counted, kept for the last few messages: a message written again is counted once. */
const CountedSchema = lazySchema(() =>
  z.object({ id: word(128), input: count(), output: count(), cache_read: count(), cache_write: count() }),
);
export type Counted = z.infer<typeof CountedSchema>;

export const UsageFactsSchema = lazySchema(() =>
  z.object({
    model: z.optional(z.object({ id: word(128), at: iso() })),
    /** Tokens in the context (what the latest request carried), and the window where the harness states it. */
    context: z.optional(
      z.object({
        used: z.optional(count()),
        window: z.optional(count()),
        percent: z.optional(z.number().check(z.gte(0), z.lte(1000))),
        at: iso(),
      }),
    ),
    tokens: z.optional(TokenCountsSchema),
    windows: z.optional(z.array(QuotaWindowSchema).check(z.maxLength(8))),
    /** The reset of a limit stated in the current turn (cleared by the next user line). */
    limit: z.optional(z.object({ resets_at: z.optional(iso()), window: z.optional(word(64)), status: z.optional(z.int()), at: iso() })),
    compacted: z.optional(z.object({ at: iso(), trigger: z.optional(word(32)), pre_tokens: z.optional(count()) })),
    /** The last messages counted (Claude Code writes one line per content block, each with the message's usage). */
    counted: z.optional(z.array(CountedSchema).check(z.maxLength(32))),
  }),
);
export type UsageFacts = z.infer<typeof UsageFactsSchema>;

/** Messages whose usage is remembered: a message's lines are written together, far fewer apart than this. */
export const COUNTED_MESSAGES = 16;

/** ISO 8601 from epoch seconds, when it is a plausible time; undefined otherwise. */
export function isoFromSeconds(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > 1e11) return undefined;
  return new Date(Math.round(value * 1000)).toISOString();
}

/** A line's own time (its `timestamp`), as ISO 8601; undefined when it has none that parses. */
export function isoOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** A non-negative whole count, or undefined. */
export function countOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The quota windows with `window` replacing the one of its name, in a stable order. */
export function withWindow(windows: readonly QuotaWindow[] | undefined, window: QuotaWindow): QuotaWindow[] {
  return [...(windows ?? []).filter((known) => known.name !== window.name), window].sort((a, b) => (a.name < b.name ? -1 : 1)).slice(-8);
}
