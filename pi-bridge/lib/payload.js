// @ts-check
// The normalized payload (docs/contract.md, "Normalized payload"), built in one place for every in-process emitter:
// the Pi bridge (../index.js) and the OpenCode plugin (../../opencode-plugin/). Text is cut to the hook's bounds here,
// so neither emitter can send a payload the hook would refuse for its length.
import { LIMITS, truncateBytes } from "./text.js";

/**
 * @typedef {"started" | "running" | "waiting" | "idle" | "error" | "ended"} Status
 * @typedef {{
 *   schema_version: 1, event_id: string, session_id: string, instance_id: string, sequence: number, pid: number,
 *   cwd: string, status: Status, detail: string, tool: string,
 * }} NormalizedPayload
 */

/**
 * @param {{
 *   harness: string, event: string, sessionId: string, instanceId: string, sequence: number, pid: number, cwd: string,
 *   status: Status, detail: string, tool: string,
 * }} fields `harness` and `event` form `event_id` (`<harness>.<event>`); ids and cwd are passed unchanged (the
 *   emitter checks them with acceptableText: a cut id would name another session).
 * @returns {NormalizedPayload}
 */
export function normalizedPayload({ harness, event, sessionId, instanceId, sequence, pid, cwd, status, detail, tool }) {
  return {
    schema_version: 1,
    event_id: `${harness}.${event}`,
    session_id: sessionId,
    instance_id: instanceId,
    sequence,
    pid,
    cwd,
    status,
    detail: truncateBytes(detail, LIMITS.detailBytes),
    tool: truncateBytes(tool, LIMITS.toolBytes),
  };
}
