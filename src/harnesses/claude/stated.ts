// What Claude Code states about a turn where no hook fires (anthropics/claude-code#9516: nothing on Esc). Two places,
// both verified on 2.1.332 (fixtures beside this file, docs/harness-facts.md):
// - the transcript (`transcript_path`, JSONL): Esc on a tool call or its permission dialog appends a user line whose
//   text is "[Request interrupted by user for tool use]"; any user text beginning "[Request interrupted by user" counts
//   (Esc while text streams was not captured here). Esc before the first token writes nothing there.
// - `<config>/sessions/<pid>.json`, one per running process: `status` busy | waiting | idle with `statusUpdatedAt`
//   (ms), rewritten on every change, Esc before the first token included. Used only for the exact pid, session id and
//   process start of the record.
//
// Beside turn outcomes, the transcript states usage (docs/limits.md): each assistant line carries its message's `model`
// and `usage` (one line per content block, the same message id and usage on each: counted once per id); a failed call's
// line (`isApiErrorMessage`, model `<synthetic>`) carries `apiErrorParams.rate_limit_info` with `resetsAt` (epoch
// seconds) and `rateLimitType`; a compaction writes a `system` line `compact_boundary` with `compactMetadata`.
import { dirname, join } from "node:path";
import { COUNTED_MESSAGES, countOf, isoFromSeconds, isoOf, type UsageFacts } from "../../core/usage-facts.ts";
import type { StatedFact, StatedStateReader, StatedSubject } from "../contract.ts";

const INTERRUPTED = "[Request interrupted by user";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function validTime(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function interpretLine(line: unknown, subject: StatedSubject): StatedFact | undefined {
  if (!isObject(line) || line.type !== "user" || line.sessionId !== subject.sessionId || line.isSidechain === true) return undefined;
  const content = isObject(line.message) ? line.message.content : undefined;
  const parts =
    typeof content === "string"
      ? [content]
      : Array.isArray(content)
        ? content.map((part) => (isObject(part) && part.type === "text" ? part.text : undefined))
        : [];
  if (!parts.some((text) => typeof text === "string" && text.startsWith(INTERRUPTED))) return undefined;
  const at = validTime(line.timestamp);
  return at
    ? { status: "idle", event: "interrupted", detail: "interrupted by the user (stated in Claude Code's transcript)", at }
    : undefined;
}

/** `<config>/projects/<project>/<session>.jsonl` → `<config>/sessions/<pid>.json`; any other shape has no state file. */
function processStatePath(transcriptPath: string, pid: number): string | undefined {
  const projects = dirname(dirname(transcriptPath));
  if (!projects.endsWith("/projects")) return undefined;
  return join(dirname(projects), "sessions", `${pid}.json`);
}

function interpretProcessState(value: unknown, subject: StatedSubject): StatedFact | undefined {
  if (!isObject(value) || value.status !== "idle" || value.pid !== subject.pid || value.sessionId !== subject.sessionId) return undefined;
  // The process-start token proves the file is this process's, not an earlier one's with a reused pid.
  if (typeof value.procStart !== "string" || !/^\d+$/.test(value.procStart) || !subject.processStart?.endsWith(`:${value.procStart}`))
    return undefined;
  const ms = value.statusUpdatedAt;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms <= 0) return undefined;
  return {
    status: "idle",
    event: "state-idle",
    detail: "idle (stated by Claude Code's session state; no hook fires on Esc)",
    at: new Date(ms).toISOString(),
  };
}

/** The model Claude Code names on the line it writes for a failed call: not a model that answered. */
const SYNTHETIC_MODEL = "<synthetic>";

function readUsage(line: unknown, subject: StatedSubject, facts: UsageFacts, complete: boolean): UsageFacts {
  if (!isObject(line) || line.sessionId !== subject.sessionId || line.isSidechain === true) return facts;
  const at = isoOf(line.timestamp);
  if (at === undefined) return facts;
  if (line.type === "system" && line.subtype === "compact_boundary") {
    const meta = isObject(line.compactMetadata) ? line.compactMetadata : {};
    const trigger = typeof meta.trigger === "string" ? meta.trigger.slice(0, 32) : undefined;
    const preTokens = countOf(meta.preTokens);
    return { ...facts, compacted: { at, ...(trigger ? { trigger } : {}), ...(preTokens !== undefined ? { pre_tokens: preTokens } : {}) } };
  }
  if (line.type !== "assistant" || !isObject(line.message)) return facts;
  if (line.isApiErrorMessage === true) {
    const params = isObject(line.apiErrorParams) ? line.apiErrorParams : {};
    const info = isObject(params.rate_limit_info) ? params.rate_limit_info : undefined;
    const status = countOf(line.apiErrorStatus);
    const resetsAt = isoFromSeconds(info?.resetsAt);
    const window = typeof info?.rateLimitType === "string" ? info.rateLimitType.slice(0, 64) : undefined;
    const limit = { at, ...(resetsAt ? { resets_at: resetsAt } : {}), ...(window ? { window } : {}), ...(status ? { status } : {}) };
    return { ...facts, limit };
  }
  const { model, usage, id } = line.message;
  const next: UsageFacts = { ...facts };
  // A model answered: whatever limit an earlier call met is over.
  delete next.limit;
  if (typeof model === "string" && model !== "" && model !== SYNTHETIC_MODEL) next.model = { id: model.slice(0, 128), at };
  if (!isObject(usage) || typeof id !== "string" || id === "" || model === SYNTHETIC_MODEL) return next;
  const counted = {
    id: id.slice(0, 128),
    input: countOf(usage.input_tokens) ?? 0,
    output: countOf(usage.output_tokens) ?? 0,
    cache_read: countOf(usage.cache_read_input_tokens) ?? 0,
    cache_write: countOf(usage.cache_creation_input_tokens) ?? 0,
  };
  // What the request carried is what the context holds now: its input, written to and read from the cache.
  next.context = { used: counted.input + counted.cache_read + counted.cache_write, at };
  const known = (facts.counted ?? []).find((entry) => entry.id === counted.id);
  const before = facts.tokens ?? { input: 0, output: 0, cache_read: 0, cache_write: 0, complete };
  const delta = (key: "input" | "output" | "cache_read" | "cache_write") => Math.max(0, before[key] + counted[key] - (known?.[key] ?? 0));
  next.tokens = {
    input: delta("input"),
    output: delta("output"),
    cache_read: delta("cache_read"),
    cache_write: delta("cache_write"),
    complete: before.complete && complete,
  };
  next.counted = [...(facts.counted ?? []).filter((entry) => entry.id !== counted.id), counted].slice(-COUNTED_MESSAGES);
  return next;
}

export const stated = {
  lineMentions: [INTERRUPTED],
  interpretLine,
  usageMentions: ['"usage"', '"rate_limit_info"', '"compact_boundary"'],
  readUsage,
  processState: { path: processStatePath, interpret: interpretProcessState },
} satisfies StatedStateReader;
