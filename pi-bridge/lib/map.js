// @ts-check
// Pi extension events -> lifecycle transitions of the normalized payload (docs/contract.md, "Normalized payload").
// Stateful, because several Pi events only mean something in context:
// - `agent_end` is final only on Pi versions without `agent_settled` (the 0.73 line). Newer Pi may retry, compact or
//   run queued follow-ups after it. The mapper learns the capability by seeing `agent_settled` once; until then each
//   successful `agent_end` reports idle (on Pi 1.6 `agent_settled` follows within milliseconds with the same state).
// - A failed run stays `error` until the next run starts: `agent_settled` after it reports nothing.
// - An aborted run (Esc, RPC `abort`) ends idle, `turn interrupted`, as Esc ends in Claude Code and Codex: the user
//   stopped it; nothing failed.
// - `ui_prompt_start`/`ui_prompt_end` may nest; the session is waiting until the outermost prompt ends, and running
//   events meanwhile (parallel tools) are remembered, not sent, so `waiting` is not hidden.
import { LIMITS, boundedLine } from "./text.js";

/** Longest one-line summary of the last assistant message (the same bound as Claude Code's stop summary). */
export const SUMMARY_BYTES = 160;
/** Longest error message kept in a detail. */
export const ERROR_BYTES = 240;
/** What an aborted run (Esc) leaves: the words Codex's Interrupt gives. */
export const INTERRUPTED = "turn interrupted";

/**
 * @typedef {"started" | "running" | "waiting" | "idle" | "error" | "ended"} Status
 * @typedef {{ event: string, status: Status, detail: string, tool: string }} Transition
 *   `event` is the kebab-case Pi event name (the `pi.` part of `event_id` is added by the bridge).
 */

const START_DETAILS = /** @type {Record<string, string>} */ ({
  startup: "session started",
  reload: "session reloaded",
  new: "new session",
  resume: "session resumed",
  fork: "session forked",
});

/** @param {unknown} value @returns {Record<string, unknown>} */
const record = (value) => (typeof value === "object" && value !== null ? /** @type {Record<string, unknown>} */ (value) : {});

/**
 * The last assistant message of a run, if any.
 * @param {unknown} event
 */
function lastAssistant(event) {
  const messages = record(event).messages;
  if (!Array.isArray(messages)) return undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = record(messages[index]);
    if (message.role === "assistant") return message;
  }
  return undefined;
}

/** @param {Record<string, unknown>} message */
function assistantText(message) {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => record(part))
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join(" ");
}

/**
 * @param {string} event
 * @param {Status} status
 * @param {string} detail
 * @param {string} [tool]
 * @returns {Transition}
 */
const transition = (event, status, detail, tool = "") => ({ event, status, detail, tool });

/**
 * @param {{ capabilities?: { settled: boolean } }} [options] `capabilities` is shared by every mapper in one Pi process
 *   (Pi loads the extension again for each session), so what one session learned holds for the next.
 */
export function createMapper({ capabilities = { settled: false } } = {}) {
  const state = {
    /** Open extension UI prompts (nested or overlapping). */
    promptDepth: 0,
    /** An agent run is in progress (from before_agent_start/agent_start until it settles). */
    active: false,
    /** The last run ended with an error; its `error` stands until the next run starts. */
    failed: false,
    /** The running transition to return to when the outermost prompt ends. */
    lastRunning: transition("agent-start", "running", "processing prompt"),
    /** One line of the last assistant reply, the idle detail. */
    summary: "",
  };

  /** @param {Transition} next @returns {Transition | undefined} */
  const unlessPrompting = (next) => (state.promptDepth > 0 ? undefined : next);

  /** @param {Transition} next */
  const running = (next) => {
    state.active = true;
    state.lastRunning = next;
    return unlessPrompting(next);
  };

  const idleDetail = () => state.summary || "waiting for the next prompt";

  /**
   * Map one Pi event to at most one transition.
   * @param {string} name Pi's event name, e.g. `agent_end`
   * @param {unknown} event the event object Pi passed
   * @returns {Transition | undefined}
   */
  function map(name, event) {
    const data = record(event);
    switch (name) {
      case "session_start":
        state.promptDepth = 0;
        state.active = false;
        state.failed = false;
        state.summary = "";
        return transition("session-start", "started", START_DETAILS[String(data.reason)] ?? "session started");
      case "before_agent_start":
      case "agent_start":
        state.failed = false;
        return running(transition(name === "agent_start" ? "agent-start" : "before-agent-start", "running", "processing prompt"));
      case "tool_execution_start": {
        const tool = boundedLine(data.toolName, LIMITS.toolBytes);
        state.failed = false;
        return running(transition("tool-execution-start", "running", tool, tool));
      }
      case "ui_prompt_start": {
        state.promptDepth += 1;
        if (state.promptDepth > 1) return undefined;
        const title = boundedLine(data.title, SUMMARY_BYTES);
        return transition("ui-prompt-start", "waiting", title ? `waiting for input: ${title}` : "waiting for input");
      }
      case "ui_prompt_end":
        if (state.promptDepth === 0) return undefined; // unbalanced: nothing was waiting
        state.promptDepth -= 1;
        if (state.promptDepth > 0) return undefined;
        if (state.active) return transition("ui-prompt-end", "running", state.lastRunning.detail, state.lastRunning.tool);
        return transition("ui-prompt-end", "idle", idleDetail());
      case "agent_end": {
        const message = lastAssistant(event);
        const stopReason = message?.stopReason;
        if (stopReason === "aborted") {
          state.summary = "";
          state.active = false;
          return unlessPrompting(transition("agent-end", "idle", INTERRUPTED));
        }
        if (stopReason === "error") {
          state.failed = true;
          const reason = boundedLine(message?.errorMessage, ERROR_BYTES);
          return transition("agent-end", "error", reason ? `turn failed: ${reason}` : "turn failed");
        }
        state.summary = message ? boundedLine(assistantText(message), SUMMARY_BYTES) : "";
        if (capabilities.settled) return undefined; // agent_settled reports the final state
        state.active = false;
        return unlessPrompting(transition("agent-end", "idle", idleDetail()));
      }
      case "agent_settled":
        capabilities.settled = true;
        state.active = false;
        if (state.failed) return undefined;
        return unlessPrompting(transition("agent-settled", "idle", data.aborted === true ? INTERRUPTED : idleDetail()));
      case "session_shutdown": {
        const reason = boundedLine(data.reason, 32);
        return transition("session-shutdown", "ended", !reason || reason === "quit" ? "session closed" : `session closed (${reason})`);
      }
      default:
        return undefined;
    }
  }

  return { map, state, capabilities };
}

/** The Pi events the bridge subscribes to. Events an older Pi never emits simply never arrive. */
export const PI_EVENTS = Object.freeze([
  "session_start",
  "before_agent_start",
  "agent_start",
  "tool_execution_start",
  "ui_prompt_start",
  "ui_prompt_end",
  "agent_end",
  "agent_settled",
  "session_shutdown",
]);
