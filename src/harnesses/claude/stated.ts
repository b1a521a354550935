// What Claude Code states about a turn where no hook fires (anthropics/claude-code#9516: nothing on Esc). Two places,
// both verified on 2.1.332 (fixtures beside this file, docs/harness-facts.md):
// - the transcript (`transcript_path`, JSONL): Esc on a tool call or its permission dialog appends a user line whose
//   text is "[Request interrupted by user for tool use]"; any user text beginning "[Request interrupted by user" counts
//   (Esc while text streams was not captured here). Esc before the first token writes nothing there.
// - `<config>/sessions/<pid>.json`, one per running process: `status` busy | waiting | idle with `statusUpdatedAt`
//   (ms), rewritten on every change, Esc before the first token included. Used only for the exact pid, session id and
//   process start of the record.
import { dirname, join } from "node:path";
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

export const stated = {
  lineMentions: [INTERRUPTED],
  interpretLine,
  processState: { path: processStatePath, interpret: interpretProcessState },
} satisfies StatedStateReader;
