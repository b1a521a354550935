// What a session's one-line row says beside its state, the same in `list`, the picker and notifications: a limit with
// its reset (`resets 22:32 (in 3 h)`, `limit reset 5 min ago`), the subagents it runs, how full its context is. Times
// are in the user's time zone; what the harness does not state is `—` (docs/limits.md).
import { formatClock, formatSpan } from "../core/age.ts";
import type { ContextView, LimitView, QuotaView } from "./usage.ts";
import type { SessionView } from "./view.ts";

/** The state word: `limited` for a turn a limit ended (its status stays `error`), `stale` for a gone process. */
export function stateWord(session: SessionView): string {
  if (session.stale) return "stale";
  return session.limit ? "limited" : session.status;
}

/** When the limit resets, in words: `resets 22:32 (in 3 h 5 min)`, `limit reset 5 min ago`, `no reset time stated`. */
export function limitWhen(limit: LimitView, now: number): string {
  if (limit.resets_at === null) return "no reset time stated";
  const at = Date.parse(limit.resets_at);
  return at > now ? `resets ${formatClock(limit.resets_at, now)} (in ${formatSpan(at - now)})` : `limit reset ${formatSpan(now - at)} ago`;
}

/**
 * What a row or a notification says of the reset before the harness's words: `limitWhen`, or nothing where no reset
 * is stated as a time but the words say when ("You've hit your 5-hour limit · resets 10:32pm (UTC)"): "no reset time
 * stated" beside them would contradict them.
 */
export function limitLead(limit: LimitView, now: number): string | undefined {
  return limit.resets_at === null && /\breset/i.test(limit.message) ? undefined : limitWhen(limit, now);
}

/** The row's detail: the limit and its reset first, the subagents it runs, then what the last event said. */
export function rowDetail(session: SessionView, now: number): string {
  if (session.stale) return session.stale_reason;
  const parts: string[] = [];
  const lead = session.limit ? limitLead(session.limit, now) : undefined;
  if (lead) parts.push(lead);
  const agents = session.subagents.length;
  if (agents > 0) parts.push(`${agents} subagent${agents === 1 ? "" : "s"}`);
  const said = session.limit ? session.limit.message : session.detail;
  if (said !== "") parts.push(said);
  return parts.join(" · ");
}

/** Tokens in a few characters: 950, 45k, 1.2M. */
export function shortCount(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** The context column: percent of the window where both are stated, else the tokens in it, else `—`. */
export function contextCell(context: ContextView | null): string {
  if (context?.percent !== null && context?.percent !== undefined) return `${Math.round(context.percent)}%`;
  if (context?.used !== null && context?.used !== undefined) return shortCount(context.used);
  return "—";
}

/** Context in words for `show`: `45k of 200k tokens (23%)`, `45k tokens (window not stated)`, `—`. */
export function contextWords(context: ContextView | null): string {
  if (!context || (context.used === null && context.window === null)) return "—";
  const used = context.used === null ? "—" : shortCount(context.used);
  if (context.window === null) return `${used} tokens (window not stated)`;
  const percent = context.percent === null ? "" : ` (${context.percent}%)`;
  return `${used} of ${shortCount(context.window)} tokens${percent}`;
}

/** A quota window's name for people: Codex names its windows `primary` and `secondary`, their length says which. */
export function windowName(window: Pick<QuotaView, "window" | "window_minutes">): string {
  const minutes = window.window_minutes;
  if (minutes === null) return window.window;
  const length = minutes % 1440 === 0 ? `${minutes / 1440} d` : minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
  return `${window.window} (${length})`;
}

/** One quota window in words: `five_hour 92% used, resets 22:32 (in 2 h)`. */
export function quotaWords(window: QuotaView, now: number): string {
  const reset =
    window.resets_at === null
      ? ""
      : Date.parse(window.resets_at) > now
        ? `, resets ${formatClock(window.resets_at, now)} (in ${formatSpan(Date.parse(window.resets_at) - now)})`
        : `, reset ${formatSpan(now - Date.parse(window.resets_at))} ago`;
  return `${windowName(window)} ${Math.round(window.used_percent)}% used${reset}`;
}
