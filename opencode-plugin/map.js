// @ts-check
// OpenCode's plugin events -> lifecycle transitions of the normalized payload (docs/contract.md, "Normalized payload"),
// one mapper per OpenCode process because one process hosts several sessions. Rules, from runs of OpenCode 1.18.33
// (../../docs/harness-facts.md, "OpenCode"):
// - A child session (a subagent's, `info.parentID` set) is not a session of its own: it has no terminal and the user
//   never prompts it. Its tool activity and permission dialogs are reported as its root session's; its idle, status
//   and errors are not (the root's own turn is still running and reports its own end).
// - `session.status` busy repeats within a turn, and `session.idle` follows `session.status` idle: each state is sent
//   once. A failed turn's `error` stands through the `idle` OpenCode sends after `session.error`, until the next turn.
// - Esc twice aborts a turn: OpenCode states it as `session.error` named MessageAbortedError, which its own TUI does not
//   show as an error. It is the user's interruption, not a failure: idle, "turn interrupted" (as Esc ends in Claude
//   Code and Codex), standing through the `idle` that follows as an error does.
// - A permission dialog (`permission.asked`) or a question from the model (`question.asked`, OpenCode's `question` tool)
//   holds the session `waiting` until every open request of that session is replied (a question also when dismissed,
//   `question.rejected`); running events meanwhile are remembered, not sent, so `waiting` is not hidden.
import { LIMITS, acceptableText, boundedLine } from "../pi-bridge/lib/text.js";

/** Every event name the mapper emits (`opencode.<name>`); the registry's allowlist must match it (registry.test.ts). */
export const EMITTED_EVENTS = Object.freeze([
  "session-start",
  "session-busy",
  "session-retry",
  "tool-execute-before",
  "permission-asked",
  "permission-replied",
  "question-asked",
  "question-replied",
  "session-idle",
  "session-error",
  "session-interrupted",
  "session-limited",
  "session-deleted",
]);

/** Longest error text kept in a detail. */
export const ERROR_BYTES = 240;
/** Longest question text kept in a detail. */
export const QUESTION_BYTES = 160;
/** Sessions remembered per process (roots and children); the oldest is forgotten past this. */
export const MAX_SESSIONS = 256;

/**
 * @typedef {import("../pi-bridge/lib/payload.js").Status} Status
 * @typedef {{ sessionId: string, cwd: string | undefined, event: string, status: Status, detail: string, tool: string }} Transition
 *   `event` is the kebab-case name sent as `opencode.<event>`; `sessionId` is the root session's.
 * @typedef {{ parent: string | undefined, cwd: string | undefined, waits: Set<string>, turnEnded: boolean,
 *   ended: boolean, lastRunning: { detail: string, tool: string } }} SessionState
 */

/** @param {unknown} value @returns {Record<string, unknown>} */
const record = (value) => (typeof value === "object" && value !== null ? /** @type {Record<string, unknown>} */ (value) : {});

const PROCESSING = { detail: "processing prompt", tool: "" };

/** What `session.error` carries, in one line: `APIError 400: message`. @param {unknown} value */
function errorText(value) {
  const error = record(value);
  const data = record(error.data);
  const name = boundedLine(error.name, 64);
  const code = typeof data.statusCode === "number" ? ` ${data.statusCode}` : "";
  const message = boundedLine(data.message, ERROR_BYTES);
  const head = `${name}${code}`.trim();
  return [head, message].filter(Boolean).join(": ");
}

export function createMapper() {
  /** @type {Map<string, SessionState>} */
  const sessions = new Map();

  /** @param {string} id @returns {SessionState} */
  const sessionOf = (id) => {
    let state = sessions.get(id);
    if (!state) {
      state = { parent: undefined, cwd: undefined, waits: new Set(), turnEnded: false, ended: false, lastRunning: PROCESSING };
      sessions.set(id, state);
      if (sessions.size > MAX_SESSIONS) sessions.delete(/** @type {string} */ (sessions.keys().next().value));
    }
    return state;
  };

  /** The root of a session (itself when it has no known parent); bounded against a cycle in hostile input. */
  const rootOf = (/** @type {string} */ id) => {
    let current = id;
    for (let hops = 0; hops < 16; hops++) {
      const parent = sessions.get(current)?.parent;
      if (!parent) break;
      current = parent;
    }
    return current;
  };

  /** Learn a session's parent and directory from a session `info` object. @param {unknown} value */
  const learn = (value) => {
    const info = record(value);
    const id = acceptableText(info.id, LIMITS.idBytes);
    if (!id) return undefined;
    const state = sessionOf(id);
    const parent = acceptableText(info.parentID, LIMITS.idBytes);
    if (parent && parent !== id) state.parent = parent;
    const cwd = acceptableText(info.directory, LIMITS.cwdBytes);
    if (cwd) state.cwd = cwd;
    return id;
  };

  /**
   * @param {string} root
   * @param {string} event
   * @param {Status} status
   * @param {string} detail
   * @param {string} [tool]
   * @returns {Transition}
   */
  const transition = (root, event, status, detail, tool = "") => ({
    sessionId: root,
    cwd: sessions.get(root)?.cwd,
    event,
    status,
    detail,
    tool,
  });

  /** A running transition of `root`, held back while one of its permission dialogs is open. */
  const running = (/** @type {string} */ root, /** @type {string} */ event, /** @type {{ detail: string, tool: string }} */ what) => {
    const state = sessionOf(root);
    state.turnEnded = false;
    state.lastRunning = what;
    if (state.waits.size > 0) return undefined;
    return transition(root, event, "running", what.detail, what.tool);
  };

  /**
   * A bus event (the plugin's `event` hook).
   * @param {unknown} value `{ type, properties }`
   * @returns {Transition | undefined}
   */
  function mapEvent(value) {
    const event = record(value);
    const properties = record(event.properties);
    const type = event.type;
    if (type === "session.created" || type === "session.updated") {
      const id = learn(properties.info);
      if (!id || type === "session.updated" || sessionOf(id).parent) return undefined;
      return transition(id, "session-start", "started", "session started");
    }
    const sessionId = acceptableText(properties.sessionID, LIMITS.idBytes);
    if (!sessionId) return undefined;
    const child = Boolean(sessionOf(sessionId).parent);
    const root = rootOf(sessionId);
    const state = sessionOf(root);
    if (state.ended) return undefined;
    switch (type) {
      case "session.status": {
        if (child) return undefined;
        const status = record(properties.status);
        if (status.type === "busy") return running(root, "session-busy", PROCESSING);
        if (status.type === "retry") {
          const attempt = typeof status.attempt === "number" ? ` (attempt ${status.attempt})` : "";
          return running(root, "session-retry", { detail: `retrying${attempt}: ${boundedLine(status.message, ERROR_BYTES)}`, tool: "" });
        }
        if (status.type === "idle") return idle(root);
        return undefined;
      }
      case "session.idle":
        return child ? undefined : idle(root);
      case "session.error": {
        if (child) return undefined;
        state.turnEnded = true;
        state.waits.clear();
        if (record(properties.error).name === "MessageAbortedError")
          return transition(root, "session-interrupted", "idle", "turn interrupted");
        const text = errorText(properties.error);
        // HTTP 429 from the provider: a rate limit, reported as such (docs/limits.md); its words are the detail.
        if (record(record(properties.error).data).statusCode === 429)
          return transition(root, "session-limited", "error", text || "APIError 429");
        return transition(root, "session-error", "error", text ? `turn failed: ${text}` : "turn failed");
      }
      case "permission.asked": {
        const id = acceptableText(properties.id, LIMITS.idBytes) ?? `unnamed-${state.waits.size}`;
        const opened = state.waits.size === 0;
        state.waits.add(id);
        if (!opened) return undefined;
        const tool = boundedLine(properties.permission, LIMITS.toolBytes);
        return transition(root, "permission-asked", "waiting", tool ? `permission: ${tool}` : "permission requested", tool);
      }
      case "permission.replied": {
        const id = acceptableText(properties.requestID, LIMITS.idBytes) ?? acceptableText(properties.permissionID, LIMITS.idBytes);
        return answered(state, root, id, "permission-replied");
      }
      case "question.asked": {
        const id = acceptableText(properties.id, LIMITS.idBytes) ?? `unnamed-${state.waits.size}`;
        const opened = state.waits.size === 0;
        state.waits.add(id);
        if (!opened) return undefined;
        const question = boundedLine(
          record(Array.isArray(properties.questions) ? properties.questions[0] : undefined).question,
          QUESTION_BYTES,
        );
        return transition(root, "question-asked", "waiting", question ? `question: ${question}` : "question asked", "question");
      }
      case "question.replied":
      case "question.rejected":
        return answered(state, root, acceptableText(properties.requestID, LIMITS.idBytes), "question-replied");
      case "session.deleted":
        if (child) return undefined;
        state.ended = true;
        return transition(root, "session-deleted", "ended", "session deleted");
      default:
        return undefined;
    }
  }

  /**
   * A dialog of `root` was answered: running again (what ran before it) once no other dialog of the session is open.
   * @param {SessionState} state @param {string} root @param {string | undefined} id @param {string} event
   */
  function answered(state, root, id, event) {
    if (!id || !state.waits.delete(id) || state.waits.size > 0) return undefined;
    return transition(root, event, "running", state.lastRunning.detail, state.lastRunning.tool);
  }

  /** @param {string} root */
  function idle(root) {
    const state = sessionOf(root);
    state.waits.clear();
    state.lastRunning = PROCESSING;
    if (state.turnEnded) return undefined; // a failed or interrupted turn's end stands until the next one starts
    return transition(root, "session-idle", "idle", "waiting for the next prompt");
  }

  /**
   * The `tool.execute.before` hook: a tool starts in a session (or in a subagent's child session: its root's activity).
   * @param {unknown} input `{ tool, sessionID, callID }`
   * @returns {Transition | undefined}
   */
  function mapToolStart(input) {
    const data = record(input);
    const sessionId = acceptableText(data.sessionID, LIMITS.idBytes);
    if (!sessionId) return undefined;
    const root = rootOf(sessionId);
    if (sessionOf(root).ended) return undefined;
    const tool = boundedLine(data.tool, LIMITS.toolBytes);
    return running(root, "tool-execute-before", { detail: tool || "running a tool", tool });
  }

  return { mapEvent, mapToolStart, rootOf, sessions };
}
