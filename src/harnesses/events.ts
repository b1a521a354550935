// What each hook event means for a session: native aliases (Claude Code, Codex) mapped to states, and the normalized
// payload's events checked against the emitter's allowlist. The table is documented in docs/contract.md.
import { LIMITS, toDisplayLine, truncateBytes } from "../core/bounds.ts";
import type { Harness, NativeAlias } from "./contract.ts";
import { EVENT_ID_PATTERN, type FleetEvent, type LifecycleStatus, type NativePayload } from "../core/schema.ts";

export interface Transition {
  readonly status: LifecycleStatus;
  readonly detail: string;
  readonly tool: string;
  /** States this event does not replace (a reminder that the agent is idle must not erase an error). */
  readonly yieldsTo?: readonly LifecycleStatus[];
}

export type Interpretation = { kind: "apply"; transition: Transition } | { kind: "ignore"; reason: string };

/** The longest stop summary kept from the last assistant message (one display line). */
export const STOP_SUMMARY_BYTES = 160;

function toolName(payload: NativePayload): string {
  return payload.tool_name === undefined ? "" : truncateBytes(toDisplayLine(payload.tool_name), LIMITS.toolBytes);
}

const fixed = (status: LifecycleStatus, detail: string): Interpretation => ({ kind: "apply", transition: { status, detail, tool: "" } });

export function interpretNative(alias: NativeAlias, payload: NativePayload): Interpretation {
  switch (alias) {
    case "session-start":
      return fixed("started", "session started");
    case "prompt-submit":
      return fixed("running", "processing prompt");
    case "tool-use": {
      const tool = toolName(payload);
      return { kind: "apply", transition: { status: "running", detail: tool, tool } };
    }
    case "tool-done": {
      // PostToolUse: back to running, so "waiting" does not stick after the user approved a tool.
      const tool = toolName(payload);
      return { kind: "apply", transition: { status: "running", detail: tool === "" ? "tool finished" : `${tool} finished`, tool } };
    }
    case "permission-request": {
      const tool = toolName(payload);
      return { kind: "apply", transition: { status: "waiting", detail: tool === "" ? "permission requested" : `permission: ${tool}`, tool } };
    }
    case "notification":
      switch (payload.notification_type) {
        case "permission_prompt":
          return fixed("waiting", "permission requested");
        case "elicitation_dialog":
          return fixed("waiting", "waiting for user input");
        case "idle_prompt":
          // Claude sends it about a minute after any turn, failed ones included: an error stays until the next turn.
          return { kind: "apply", transition: { status: "idle", detail: "waiting for the next prompt", tool: "", yieldsTo: ["error"] } };
        default:
          return { kind: "ignore", reason: `notification type ${JSON.stringify(truncateBytes(String(payload.notification_type ?? ""), 64))} is not a state change` };
      }
    case "stop": {
      const message = payload.last_assistant_message;
      return fixed("idle", typeof message === "string" ? truncateBytes(toDisplayLine(message), STOP_SUMMARY_BYTES) : "");
    }
    case "stop-failure":
      return fixed("error", "turn failed (API error)");
    case "elicitation":
      return fixed("waiting", "waiting for user input");
    case "interrupt":
      return fixed("idle", "turn interrupted");
    case "session-end":
      return fixed("ended", "session closed");
  }
}

export type FleetEventCheck = { ok: true; eventName: string; transition: Transition } | { ok: false; detail: string };

/** The normalized payload's event must be namespaced to this harness, allowlisted, and carry a state it allows. */
export function interpretFleetEvent(harness: Harness, payload: FleetEvent): FleetEventCheck {
  const match = EVENT_ID_PATTERN.exec(payload.event_id);
  if (!match || match[1] !== harness.id) return { ok: false, detail: `event_id ${payload.event_id} is not in the ${harness.id}. namespace` };
  const eventName = match[2] as string;
  const allowed = harness.emitterEvents?.[eventName];
  if (!allowed) return { ok: false, detail: `unsupported event ${payload.event_id}` };
  if (!allowed.includes(payload.status)) return { ok: false, detail: `${payload.event_id} cannot set status ${payload.status}` };
  return { ok: true, eventName, transition: { status: payload.status, detail: payload.detail, tool: payload.tool } };
}
