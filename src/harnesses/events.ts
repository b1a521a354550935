// What each hook event means for a session: native aliases (Claude Code, Codex) mapped to states, and the normalized
// payload's events checked against the emitter's allowlist. The table is documented in docs/contract.md.
import { LIMITS, byteLength, isStorableText, toDisplayLine, truncateBytes } from "../core/bounds.ts";
import type { Harness, NativeAlias } from "./contract.ts";
import {
  EVENT_ID_PATTERN,
  type FleetEvent,
  type LifecycleEvent,
  type Limit,
  type LifecycleStatus,
  type NativePayload,
  type WaitEffect,
} from "../core/schema.ts";

export interface Transition {
  readonly status: LifecycleStatus;
  readonly detail: string;
  readonly tool: string;
  /** States this event does not replace (a reminder that the agent is idle must not erase an error). */
  readonly yieldsTo?: readonly LifecycleStatus[];
  /** How the event opens or closes the session's waits (store/waits.ts; docs/contract.md, "Waiting"). */
  readonly wait?: WaitEffect;
  /** The harness's id for the tool call (Claude Code and Codex send `tool_use_id` with PreToolUse and PostToolUse). */
  readonly toolUseId?: string;
  /** A limit ended the turn (a StopFailure whose error is one). */
  readonly limit?: Limit;
  /** Compaction starts (PreCompact) or ends (PostCompact). */
  readonly compaction?: NonNullable<LifecycleEvent["compaction"]>;
  /** A subagent started or stopped: the state is left as it is (schema.ts, LifecycleEvent `subagent`). */
  readonly subagent?: NonNullable<LifecycleEvent["subagent"]>;
}

export type Interpretation = { kind: "apply"; transition: Transition } | { kind: "ignore"; reason: string };

/** The longest stop summary kept from the last assistant message (one display line). */
export const STOP_SUMMARY_BYTES = 160;

function toolName(payload: NativePayload): string {
  return payload.tool_name === undefined ? "" : truncateBytes(toDisplayLine(payload.tool_name), LIMITS.toolBytes);
}

/** The payload's `tool_use_id` when it is one we can keep; anything else counts as absent (never a rejection). */
function toolUseId(payload: NativePayload): { toolUseId?: string } {
  const id = payload.tool_use_id;
  return typeof id === "string" && id !== "" && isStorableText(id) && byteLength(id) <= LIMITS.toolUseIdBytes ? { toolUseId: id } : {};
}

const fixed = (status: LifecycleStatus, detail: string, wait?: WaitEffect): Interpretation => ({
  kind: "apply",
  transition: { status, detail, tool: "", ...(wait ? { wait } : {}) },
});

// Waits (docs/contract.md, "Waiting"): a permission request or a question opens one; it closes when the tool that asked
// finishes or fails, or the turn ends, or a new prompt arrives. Another tool finishing meanwhile leaves it open.
export function interpretNative(alias: NativeAlias, payload: NativePayload): Interpretation {
  switch (alias) {
    case "session-start":
      // Claude Code 2.1.332 starts its session again, with the same id, in the middle of a compaction (PreCompact,
      // SessionStart `compact`, PostCompact): the compaction goes on.
      return payload.source === "compact" ? compaction("start", payload) : fixed("started", "session started", "clear");
    case "prompt-submit":
      return fixed("running", "processing prompt", "clear");
    case "tool-use": {
      const tool = toolName(payload);
      return { kind: "apply", transition: { status: "running", detail: tool, tool, wait: "tool-start", ...toolUseId(payload) } };
    }
    case "tool-approved": {
      // Qwen Code's PreToolUse: it fires after the permission dialog was answered, so it ends that wait.
      const tool = toolName(payload);
      return { kind: "apply", transition: { status: "running", detail: tool, tool, wait: "tool-approved", ...toolUseId(payload) } };
    }
    case "tool-done": {
      // PostToolUse: back to running, so "waiting" does not stick after the user approved the tool that asked.
      const tool = toolName(payload);
      return {
        kind: "apply",
        transition: {
          status: "running",
          detail: tool === "" ? "tool finished" : `${tool} finished`,
          tool,
          wait: "tool-end",
          ...toolUseId(payload),
        },
      };
    }
    case "tool-failed": {
      // PostToolUseFailure (Claude Code fires PostToolUse only for a tool that succeeded).
      const tool = toolName(payload);
      return {
        kind: "apply",
        transition: {
          status: "running",
          detail: tool === "" ? "tool failed" : `${tool} failed`,
          tool,
          wait: "tool-end",
          ...toolUseId(payload),
        },
      };
    }
    case "permission-request": {
      // Neither Claude Code 2.1.332 nor Codex 0.171.0 sends tool_use_id here: the tool is linked by name (waits.ts).
      const tool = toolName(payload);
      return {
        kind: "apply",
        transition: { status: "waiting", detail: tool === "" ? "permission requested" : `permission: ${tool}`, tool, wait: "permission" },
      };
    }
    case "notification":
      switch (payload.notification_type) {
        case "permission_prompt":
          // About 6 s after PermissionRequest, naming no tool: the same wait, so it keeps the wait's tool and detail.
          return fixed("waiting", "permission requested", "permission");
        case "ToolPermission":
          // Gemini CLI's approval dialog (it fires BeforeTool before asking, and no PermissionRequest).
          return fixed("waiting", "permission requested", "permission");
        case "elicitation_dialog":
          return fixed("waiting", "waiting for user input", "input");
        case "idle_prompt":
          // Claude sends it about a minute after any turn, failed ones included: an error stays until the next turn.
          return {
            kind: "apply",
            transition: { status: "idle", detail: "waiting for the next prompt", tool: "", yieldsTo: ["error"], wait: "clear" },
          };
        default:
          return {
            kind: "ignore",
            reason: `notification type ${JSON.stringify(truncateBytes(String(payload.notification_type ?? ""), 64))} is not a state change`,
          };
      }
    case "stop": {
      const message = payload.last_assistant_message;
      return fixed("idle", typeof message === "string" ? truncateBytes(toDisplayLine(message), STOP_SUMMARY_BYTES) : "", "clear");
    }
    case "stop-failure": {
      const limit = limitOf(payload);
      if (limit) return { kind: "apply", transition: { status: "error", detail: limit.message, tool: "", wait: "clear", limit } };
      // Kimi Code says what failed (its error's class name and message): its words are the detail.
      const words = [payload.error_type, payload.error_message]
        .filter((part): part is string => typeof part === "string" && part.trim() !== "")
        .map((part) => toDisplayLine(part));
      return fixed(
        "error",
        words.length > 0 ? truncateBytes(`turn failed: ${words.join(": ")}`, STOP_SUMMARY_BYTES) : "turn failed (API error)",
        "clear",
      );
    }
    case "error-occurred":
      // Copilot CLI reports tool and hook failures here too: only a failed model call ends the turn in error.
      return payload.error_context === "model_call"
        ? fixed("error", "turn failed (model call error)", "clear")
        : {
            kind: "ignore",
            reason: `error context ${JSON.stringify(truncateBytes(String(payload.error_context ?? ""), 64))} is not a turn failure`,
          };
    case "elicitation":
      return fixed("waiting", "waiting for user input", "input");
    case "interrupt":
      return fixed("idle", "turn interrupted", "clear");
    case "session-end":
      return fixed("ended", "session closed", "clear");
    case "compact-start":
      return compaction("start", payload);
    case "compact-end":
      // The state compaction began in comes back (apply.ts decides it from the record): `/compact` between turns ends
      // at the prompt, a compaction inside a turn lets the turn go on.
      return compaction("end", payload);
    case "subagent-start":
    case "subagent-stop": {
      const id = payload.agent_id;
      if (typeof id !== "string" || id === "" || !isStorableText(id) || byteLength(id) > LIMITS.toolUseIdBytes)
        return { kind: "ignore", reason: "a subagent event without a usable agent_id" };
      const type = payload.agent_type === undefined ? "" : truncateBytes(toDisplayLine(payload.agent_type), LIMITS.toolBytes);
      const op = alias === "subagent-start" ? "start" : "stop";
      // The status is not applied (apply.ts): the subagent's parent is in whatever state its own events left it.
      return { kind: "apply", transition: { status: "running", detail: "", tool: "", subagent: { op, id, type } } };
    }
  }
}

/** StopFailure's class of error, where it names a limit (Claude Code 2.1.332, Qwen Code 0.24.4). */
const LIMIT_ERRORS: Readonly<Record<string, Limit["kind"]>> = { rate_limit: "rate_limit", billing_error: "billing" };

/** Kimi Code 2.1.0's StopFailure `error_type`, the class name of its error (read in its bundle, not run). */
const LIMIT_CLASSES: Readonly<Record<string, Limit["kind"]>> = { APIProviderRateLimitError: "rate_limit" };

const LIMIT_WORDS: Readonly<Record<Limit["kind"], string>> = {
  rate_limit: "rate limit reached",
  usage_limit: "usage limit reached",
  billing: "billing limit reached",
};

/** The limit a StopFailure states, with the harness's words (its last message), or undefined when it is no limit. */
function limitOf(payload: NativePayload): Limit | undefined {
  // Kimi Code names the error's class instead (`error_type`), its words in `error_message`.
  const byClass = typeof payload.error_type === "string" && Object.hasOwn(LIMIT_CLASSES, payload.error_type);
  const stated = byClass ? payload.error_type : payload.error;
  const table = byClass ? LIMIT_CLASSES : LIMIT_ERRORS;
  const kind = typeof stated === "string" && Object.hasOwn(table, stated) ? table[stated] : undefined;
  if (!kind || stated === undefined) return undefined;
  const words = byClass ? payload.error_message : payload.last_assistant_message;
  const said = typeof words === "string" ? toDisplayLine(words) : "";
  return { kind, stated, message: truncateBytes(said === "" ? `${LIMIT_WORDS[kind]} (${stated})` : said, LIMITS.detailBytes) };
}

function compaction(phase: "start" | "end", payload: NativePayload): Interpretation {
  const trigger = typeof payload.trigger === "string" ? truncateBytes(toDisplayLine(payload.trigger), 32) : "";
  const detail = phase === "start" ? "compacting" : "compacted";
  return { kind: "apply", transition: { status: "running", detail, tool: "", compaction: { phase, trigger } } };
}

export type FleetEventCheck = { ok: true; eventName: string; transition: Transition } | { ok: false; detail: string };

/** The normalized payload's event must be namespaced to this harness, allowlisted, and carry a state it allows. */
export function interpretFleetEvent(harness: Harness, payload: FleetEvent): FleetEventCheck {
  const match = EVENT_ID_PATTERN.exec(payload.event_id);
  if (!match || match[1] !== harness.id)
    return { ok: false, detail: `event_id ${payload.event_id} is not in the ${harness.id}. namespace` };
  const eventName = match[2] as string;
  const allowed = harness.emitterEvents?.[eventName];
  if (!allowed) return { ok: false, detail: `unsupported event ${payload.event_id}` };
  if (!allowed.includes(payload.status)) return { ok: false, detail: `${payload.event_id} cannot set status ${payload.status}` };
  const wait = harness.emitterWaits?.[eventName];
  const limit = harness.emitterLimits?.[eventName];
  return {
    ok: true,
    eventName,
    transition: {
      status: payload.status,
      detail: payload.detail,
      tool: payload.tool,
      ...(wait ? { wait } : {}),
      ...(limit && payload.status === "error" ? { limit: { ...limit, message: payload.detail } } : {}),
    },
  };
}
