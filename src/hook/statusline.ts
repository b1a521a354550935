// The optional status-line wrapper (`install --claude-statusline`; docs/limits.md): Claude Code runs it as its status
// line command, with the same JSON on stdin it gives every status line. That JSON is the one place Claude Code states
// the context window's size and, for subscribers, how much of each quota window is used and when it resets. The
// wrapper keeps those facts for the session (store/statusline-facts.ts), notifies once when a window crosses the
// threshold the user set (store/quota-crossing.ts), and hands the same bytes to the user's own status line command,
// whose output and exit code are the wrapper's: what the user sees does not change. Nothing of ours ever reaches the
// status line; a failure of ours is silent.
import { sessionsDirOf } from "../store/paths.ts";
import { listRecords } from "../store/records.ts";
import { notifyCrossings } from "../store/quota-crossing.ts";
import { readStatuslineFacts, statuslinePath, writeStatuslineFacts } from "../store/statusline-facts.ts";
import { countOf, isoFromSeconds, isoOf, withWindow, type QuotaWindow, type UsageFacts } from "../core/usage-facts.ts";
import { isDeepStrictEqual } from "node:util";

/** The harness whose status line this wraps (the facts file is named by harness and session). */
export const STATUSLINE_HARNESS = "claude";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A reset stated as epoch seconds (as the transcript's `resetsAt`) or as an ISO time. */
function resetOf(value: unknown): string | undefined {
  return isoFromSeconds(value) ?? isoOf(value);
}

/** What the status-line input states: the model, the context and its window, the quota windows. */
export function statuslineFactsOf(value: unknown, at: string): { sessionId: string; facts: UsageFacts } | undefined {
  if (!isObject(value) || typeof value.session_id !== "string" || value.session_id === "") return undefined;
  const facts: UsageFacts = {};
  if (isObject(value.model) && typeof value.model.id === "string" && value.model.id !== "")
    facts.model = { id: value.model.id.slice(0, 128), at };
  if (isObject(value.context_window)) {
    const window = value.context_window;
    const current = isObject(window.current_usage) ? window.current_usage : undefined;
    const parts = current
      ? [current.input_tokens, current.cache_creation_input_tokens, current.cache_read_input_tokens].map(countOf)
      : [undefined];
    const used = parts.every((part) => part !== undefined) ? parts.reduce((sum: number, part) => sum + (part as number), 0) : undefined;
    const size = countOf(window.context_window_size);
    const percent =
      typeof window.used_percentage === "number" && Number.isFinite(window.used_percentage) && window.used_percentage >= 0
        ? Math.min(1000, window.used_percentage)
        : undefined;
    if (used !== undefined || size !== undefined || percent !== undefined)
      facts.context = {
        ...(used !== undefined ? { used } : {}),
        ...(size !== undefined ? { window: size } : {}),
        ...(percent !== undefined ? { percent } : {}),
        at,
      };
  }
  if (isObject(value.rate_limits)) {
    let windows: QuotaWindow[] | undefined;
    for (const [name, window] of Object.entries(value.rate_limits).slice(0, 8)) {
      if (!isObject(window) || typeof window.used_percentage !== "number" || !Number.isFinite(window.used_percentage)) continue;
      const resetsAt = resetOf(window.resets_at);
      windows = withWindow(windows, {
        name: name.slice(0, 64),
        used_percent: Math.min(1000, Math.max(0, window.used_percentage)),
        ...(resetsAt ? { resets_at: resetsAt } : {}),
        at,
      });
    }
    if (windows) facts.windows = windows;
  }
  return { sessionId: value.session_id, facts };
}

/** Facts unchanged but for when they were stated: not worth a write (the status line runs after every message). */
function sameFacts(a: UsageFacts | undefined, b: UsageFacts): boolean {
  const strip = (facts: UsageFacts | undefined) => JSON.parse(JSON.stringify(facts ?? {}).replace(/"at":"[^"]*"/g, '"at":""')) as unknown;
  return isDeepStrictEqual(strip(a), strip(b));
}

/** Keep what the input states for its session, and notify a quota crossing. Never throws. */
export function keepStatuslineFacts(
  input: Buffer,
  context: { readonly stateDir: string; readonly env: NodeJS.ProcessEnv; readonly now: number },
): void {
  try {
    let value: unknown;
    try {
      value = JSON.parse(input.toString("utf8"));
    } catch {
      return;
    }
    const stated = statuslineFactsOf(value, new Date(context.now).toISOString());
    if (!stated) return;
    const path = statuslinePath(context.stateDir, STATUSLINE_HARNESS, stated.sessionId);
    const before = readStatuslineFacts(path);
    if (sameFacts(before, stated.facts)) return;
    if (!writeStatuslineFacts(context.stateDir, path, stated.facts).ok) return;
    // Every window at or past the threshold is offered; the claim lets exactly one notify per window and reset.
    notifyCrossings(
      { harness: STATUSLINE_HARNESS, canonicalId: () => liveRecordOf(context.stateDir, stated.sessionId) },
      stated.facts.windows ?? [],
      [],
      { stateDir: context.stateDir, env: context.env },
    );
  } catch {
    // the user's status line must not suffer for ours
  }
}

/** The record of this session (the newest, when its process ran it more than once): where a notification points. */
function liveRecordOf(stateDir: string, sessionId: string): string | undefined {
  const { records } = listRecords(sessionsDirOf(stateDir));
  return records
    .map(({ record }) => record)
    .filter((record) => record.harness === STATUSLINE_HARNESS && record.session_id === sessionId)
    .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]?.canonical_id;
}
