// What Copilot CLI states about a turn where no hook fires: a turn the user cancels (Ctrl+C while it works) fires no
// agentStop. Its session's events file (`transcript_path`, `$COPILOT_HOME/session-state/<id>/events.jsonl`) then has an
// `abort` line, `data.reason` "user_initiated", after the turn's `assistant.turn_end` (1.0.102, live; the lines of that
// run beside this file, fixtures/events-abort.jsonl).
import { toDisplayLine, truncateBytes } from "../../core/bounds.ts";
import { isoOf } from "../../core/usage-facts.ts";
import type { StatedFact, StatedStateReader } from "../contract.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function interpretLine(line: unknown): StatedFact | undefined {
  // One events file per session: its lines carry no session id to check beyond the file the record names.
  if (!isObject(line) || line.type !== "abort" || !isObject(line.data)) return undefined;
  const at = isoOf(line.timestamp);
  if (at === undefined) return undefined;
  const reason = typeof line.data.reason === "string" ? toDisplayLine(line.data.reason) : "";
  const detail =
    reason === "user_initiated"
      ? "interrupted by the user (stated in Copilot CLI's session events)"
      : `turn aborted (${truncateBytes(reason, 64)})`;
  return { status: "idle", event: "interrupted", detail, at };
}

export const stated: StatedStateReader = { lineMentions: ['"type":"abort"'], interpretLine };
