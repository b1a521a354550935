// What Codex states about a turn where no hook fires: a turn that ends on an API error fires no Stop and no other
// hook (docs/harness-facts.md). Its rollout (`transcript_path`, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`)
// then has an `event_msg` line `task_complete` whose `error` is set (0.171.0; fixtures beside this file). An error
// whose `codex_error_info` is `usage_limit_exceeded` is a limit; its reset is the reset of the quota window the
// `token_count` line before it states as used up.
//
// Beside turn outcomes the rollout states usage (docs/limits.md): `turn_context` lines name the model of each turn;
// `task_started` the model's context window; `token_count` lines the session's token totals (`total_token_usage`), what
// the last request put in the context (`last_token_usage.total_tokens`, Codex's own measure of the context in use), the
// window (`model_context_window`), and the quota windows (`rate_limits.primary` and `.secondary`: `used_percent`,
// `window_minutes`, `resets_at` in epoch seconds); a compaction writes a `compacted` line.
import { LIMITS, toDisplayLine, truncateBytes } from "../../core/bounds.ts";
import type { Limit } from "../../core/schema.ts";
import { countOf, isoFromSeconds, isoOf, withWindow, type QuotaWindow, type UsageFacts } from "../../core/usage-facts.ts";
import type { StatedFact, StatedStateReader, StatedSubject } from "../contract.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Codex's error classes that are limits (`CodexErrorInfo`, serialized in snake case). */
const LIMIT_ERRORS: Readonly<Record<string, Limit["kind"]>> = { usage_limit_exceeded: "usage_limit" };

function interpretLine(line: unknown, _subject: StatedSubject, facts: UsageFacts): StatedFact | undefined {
  // A rollout belongs to one thread; its lines carry no session id to check beyond the file the record names.
  if (!isObject(line) || line.type !== "event_msg" || !isObject(line.payload)) return undefined;
  const { payload } = line;
  if (payload.type !== "task_complete" || !isObject(payload.error)) return undefined;
  const at = isoOf(line.timestamp);
  if (at === undefined) return undefined;
  const message = typeof payload.error.message === "string" ? toDisplayLine(payload.error.message) : "";
  const info = payload.error.codex_error_info;
  const kind = typeof info === "string" && Object.hasOwn(LIMIT_ERRORS, info) ? LIMIT_ERRORS[info] : undefined;
  if (kind && typeof info === "string") {
    const said = truncateBytes(message === "" ? `usage limit reached (${info})` : message, LIMITS.detailBytes);
    const spent = exhausted(facts.windows ?? []);
    const limit: Limit = {
      kind,
      stated: info.slice(0, 64),
      message: said,
      ...(spent?.resets_at ? { resets_at: spent.resets_at } : {}),
      ...(spent ? { window: spent.name } : {}),
    };
    return { status: "error", event: "turn-limited", detail: said, at, limit };
  }
  const detail = truncateBytes(message === "" ? "turn failed (stated in Codex's rollout)" : `turn failed: ${message}`, LIMITS.detailBytes);
  return { status: "error", event: "turn-failed", detail, at };
}

/** Of the quota windows used up, the one that resets last: the limit lasts until then. */
function exhausted(windows: readonly QuotaWindow[]): QuotaWindow | undefined {
  const spent = windows.filter((window) => window.used_percent >= 100);
  return spent.sort((a, b) => Date.parse(b.resets_at ?? "") - Date.parse(a.resets_at ?? "") || 0)[0];
}

function quotaWindow(name: string, value: unknown, at: string): QuotaWindow | undefined {
  if (!isObject(value) || typeof value.used_percent !== "number" || !Number.isFinite(value.used_percent)) return undefined;
  const resetsAt = isoFromSeconds(value.resets_at);
  const minutes = countOf(value.window_minutes);
  return {
    name,
    used_percent: Math.min(1000, Math.max(0, value.used_percent)),
    ...(resetsAt ? { resets_at: resetsAt } : {}),
    ...(minutes !== undefined ? { window_minutes: minutes } : {}),
    at,
  };
}

function readUsage(line: unknown, _subject: StatedSubject, facts: UsageFacts): UsageFacts {
  if (!isObject(line) || !isObject(line.payload)) return facts;
  const at = isoOf(line.timestamp);
  if (at === undefined) return facts;
  const { payload } = line;
  if (line.type === "turn_context")
    return typeof payload.model === "string" && payload.model !== "" ? { ...facts, model: { id: payload.model.slice(0, 128), at } } : facts;
  if (line.type === "compacted") return { ...facts, compacted: { at } };
  if (line.type !== "event_msg") return facts;
  if (payload.type === "task_started") {
    const window = countOf(payload.model_context_window);
    return window === undefined ? facts : { ...facts, context: { ...facts.context, window, at } };
  }
  if (payload.type !== "token_count") return facts;
  const next: UsageFacts = { ...facts };
  if (isObject(payload.info)) {
    const { total_token_usage: total, last_token_usage: last } = payload.info;
    const window = countOf(payload.info.model_context_window) ?? facts.context?.window;
    const used = isObject(last) ? countOf(last.total_tokens) : undefined;
    if (used !== undefined || window !== undefined)
      next.context = { ...(used !== undefined ? { used } : {}), ...(window !== undefined ? { window } : {}), at };
    if (isObject(total))
      // Codex states the session's totals itself: complete whatever part of the rollout was read.
      next.tokens = {
        input: countOf(total.input_tokens) ?? 0,
        output: countOf(total.output_tokens) ?? 0,
        cache_read: countOf(total.cached_input_tokens) ?? 0,
        cache_write: countOf(total.cache_write_input_tokens) ?? 0,
        complete: true,
      };
  }
  if (isObject(payload.rate_limits)) {
    for (const name of ["primary", "secondary"]) {
      const window = quotaWindow(name, payload.rate_limits[name], at);
      if (window) next.windows = withWindow(next.windows, window);
    }
  }
  return next;
}

export const stated = {
  lineMentions: ['"task_complete"'],
  interpretLine,
  usageMentions: ['"turn_context"', '"token_count"', '"task_started"', '"compacted"'],
  readUsage,
} satisfies StatedStateReader;
