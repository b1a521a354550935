// What a session states about itself beside its state, as every reader shows it (list, show, the picker, MCP): the
// limit that ended its turn and when it resets, the model, context fill, tokens, quota windows, compaction and
// subagents (docs/limits.md). Merged from the record (what hooks said), the facts its transcript states (stated.ts)
// and, for Claude Code, its status-line input (store/statusline-facts.ts): where two sources state the same thing, the
// one stated last wins. Nothing is estimated: what no source states is null, shown as `—`.
import type { LimitKind, SessionRecord } from "../core/schema.ts";
import type { QuotaWindow, UsageFacts } from "../core/usage-facts.ts";

export interface LimitView {
  readonly kind: LimitKind;
  /** The harness's own name for it (`rate_limit`, `usage_limit_exceeded`). */
  readonly stated: string;
  /** The harness's words. */
  readonly message: string;
  /** ISO 8601, where the harness states a reset. */
  readonly resets_at: string | null;
  /** The window that ran out, in the harness's name for it, where stated. */
  readonly window: string | null;
  /** The stated reset time has passed: the agent may work again, but nothing says it has resumed. */
  readonly reset_passed: boolean;
}

export interface ContextView {
  /** Tokens in the context: what the latest request carried, as the harness counts it. */
  readonly used: number | null;
  /** The model's context window, where the harness states it. */
  readonly window: number | null;
  /** Percent of the window used, where stated or where both numbers are stated. */
  readonly percent: number | null;
}

export interface TokensView {
  readonly input: number;
  readonly output: number;
  readonly cache_read: number;
  readonly cache_write: number;
  /** False when earlier messages were never read (the session began before its transcript was first read). */
  readonly complete: boolean;
}

export interface QuotaView {
  /** The harness's name for the window: `five_hour`, `seven_day` (Claude Code), `primary`, `secondary` (Codex). */
  readonly window: string;
  readonly used_percent: number;
  readonly resets_at: string | null;
  readonly window_minutes: number | null;
}

export interface UsageView {
  readonly limit: LimitView | null;
  readonly model: string | null;
  readonly context: ContextView | null;
  readonly tokens: TokensView | null;
  /** Quota windows the harness states, by name; empty when it states none. */
  readonly quota: readonly QuotaView[];
  /** The harness is compacting the conversation now. */
  readonly compacting: boolean;
  /** Subagents started and not yet stopped, oldest first. */
  readonly subagents: readonly { readonly id: string; readonly type: string; readonly since: string }[];
}

export const NO_USAGE: UsageView = {
  limit: null,
  model: null,
  context: null,
  tokens: null,
  quota: [],
  compacting: false,
  subagents: [],
};

/** The record's state and what its harness stated; `transcript` and `statusline` are the facts read beside it. */
export function usageOf(
  record: SessionRecord,
  { transcript, statusline }: { transcript?: UsageFacts | undefined; statusline?: UsageFacts | undefined },
  now: number,
): UsageView {
  const sources = [transcript, statusline].filter((facts): facts is UsageFacts => facts !== undefined);
  const model = newest([record.model, ...sources.map((facts) => facts.model)]);
  return {
    limit: limitOf(record, transcript, now),
    model: model?.id ?? null,
    context: contextOf(sources),
    tokens: tokensOf(sources),
    quota: quotaOf(sources.flatMap((facts) => facts.windows ?? [])),
    compacting: record.compacting !== undefined && record.status === "running",
    subagents: record.subagents ?? [],
  };
}

function limitOf(record: SessionRecord, transcript: UsageFacts | undefined, now: number): LimitView | null {
  const limit = record.limit;
  if (!limit || record.status !== "error") return null;
  // The transcript states the reset of the limit this turn met (Claude Code's rate_limit_info), when the hook did not.
  const resetsAt = limit.resets_at ?? transcript?.limit?.resets_at ?? null;
  return {
    kind: limit.kind,
    stated: limit.stated,
    message: limit.message,
    resets_at: resetsAt,
    window: limit.window ?? transcript?.limit?.window ?? null,
    reset_passed: resetsAt !== null && Date.parse(resetsAt) <= now,
  };
}

function newest<T extends { readonly at: string }>(candidates: readonly (T | undefined)[]): T | undefined {
  let best: T | undefined;
  for (const candidate of candidates) if (candidate && (!best || Date.parse(candidate.at) > Date.parse(best.at))) best = candidate;
  return best;
}

/** Each number from the source that stated it last; the percent computed only from two stated numbers. */
function contextOf(sources: readonly UsageFacts[]): ContextView | null {
  const stated = sources.map((facts) => facts.context).filter((context) => context !== undefined);
  if (stated.length === 0) return null;
  const used = newest(stated.filter((context) => context.used !== undefined))?.used ?? null;
  const window = newest(stated.filter((context) => context.window !== undefined))?.window ?? null;
  const said = newest(stated);
  const percent =
    said?.percent !== undefined && said.used === used
      ? said.percent
      : used !== null && window
        ? Math.round((used / window) * 1000) / 10
        : null;
  return { used, window, percent };
}

function tokensOf(sources: readonly UsageFacts[]): TokensView | null {
  const tokens = sources.map((facts) => facts.tokens).find((counts) => counts !== undefined);
  return tokens ?? null;
}

function quotaOf(windows: readonly QuotaWindow[]): QuotaView[] {
  const latest = new Map<string, QuotaWindow>();
  for (const window of windows) {
    const known = latest.get(window.name);
    if (!known || Date.parse(window.at) >= Date.parse(known.at)) latest.set(window.name, window);
  }
  return [...latest.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((window) => ({
      window: window.name,
      used_percent: window.used_percent,
      resets_at: window.resets_at ?? null,
      window_minutes: window.window_minutes ?? null,
    }));
}
