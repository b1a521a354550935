// What Codex states about a turn where no hook fires: a turn that ends on an API error fires no Stop and no other
// hook (docs/harness-facts.md). Its rollout (`transcript_path`, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`)
// then has an `event_msg` line `task_complete` whose `error` is set (0.171.0; fixture beside this file).
import { LIMITS, toDisplayLine, truncateBytes } from "../../core/bounds.ts";
import type { StatedFact, StatedStateReader, StatedSubject } from "../contract.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function interpretLine(line: unknown, _subject: StatedSubject): StatedFact | undefined {
  // A rollout belongs to one thread; its lines carry no session id to check beyond the file the record names.
  if (!isObject(line) || line.type !== "event_msg" || !isObject(line.payload)) return undefined;
  const { payload } = line;
  if (payload.type !== "task_complete" || !isObject(payload.error)) return undefined;
  if (typeof line.timestamp !== "string" || Number.isNaN(Date.parse(line.timestamp))) return undefined;
  const message = typeof payload.error.message === "string" ? toDisplayLine(payload.error.message) : "";
  const detail = truncateBytes(message === "" ? "turn failed (stated in Codex's rollout)" : `turn failed: ${message}`, LIMITS.detailBytes);
  return { status: "error", event: "turn-failed", detail, at: new Date(Date.parse(line.timestamp)).toISOString() };
}

export const stated = {
  lineMentions: ['"task_complete"'],
  interpretLine,
} satisfies StatedStateReader;
