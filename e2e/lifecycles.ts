// Every lifecycle transition of Claude Code (native aliases, captured payloads) and Pi (normalized fleet-event
// payloads), with the record each one must leave (docs/contract.md tables). Payloads are synthetic: captured real
// payloads with the session id and cwd replaced, or built to the contract where no capture exists.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./env.ts";

export interface Step {
  /** The hook alias in the command line (fleet-event for Pi). */
  readonly alias: string;
  readonly label: string;
  readonly payload: string;
  readonly expect: { status: string; detail: string; tool?: string; last_event: string };
}

const sample = (name: string): Record<string, unknown> =>
  (
    JSON.parse(readFileSync(join(REPO_ROOT, "src", "harnesses", "claude", "fixtures", `${name}.json`), "utf8")) as {
      stdin: Record<string, unknown>;
    }
  ).stdin;

export function claudeSteps(sessionId: string, cwd: string): Step[] {
  const payload = (name: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ ...sample(name), ...extra, session_id: sessionId, cwd });
  const step = (alias: string, label: string, body: string, status: string, detail: string): Step => ({
    alias,
    label,
    payload: body,
    expect: { status, detail, last_event: `claude.${alias}` },
  });
  return [
    step("session-start", "SessionStart", payload("SessionStart"), "started", "session started"),
    step("prompt-submit", "UserPromptSubmit", payload("UserPromptSubmit"), "running", "processing prompt"),
    step("tool-use", "PreToolUse", payload("PreToolUse"), "running", "Bash"),
    step("permission-request", "PermissionRequest", payload("PermissionRequest"), "waiting", "permission: Bash"),
    step("tool-done", "PostToolUse", payload("PostToolUse"), "running", "Bash finished"),
    step("notification", "Notification permission_prompt", payload("Notification-permission_prompt"), "waiting", "permission requested"),
    step("notification", "Notification idle_prompt", payload("Notification-idle_prompt"), "idle", "waiting for the next prompt"),
    // Not captured yet: the idle_prompt capture with the other documented notification type.
    step(
      "notification",
      "Notification elicitation_dialog",
      payload("Notification-idle_prompt", { notification_type: "elicitation_dialog" }),
      "waiting",
      "waiting for user input",
    ),
    step(
      "elicitation",
      "Elicitation",
      payload("UserPromptSubmit", { hook_event_name: "Elicitation", prompt: undefined }),
      "waiting",
      "waiting for user input",
    ),
    step("stop", "Stop", payload("Stop"), "idle", "FAKE_REPLY: hello from the fake provider"),
    step("stop-failure", "StopFailure", payload("StopFailure"), "error", "turn failed (API error)"),
    step("session-end", "SessionEnd", payload("SessionEnd"), "ended", "session closed"),
  ];
}

export function piSteps(sessionId: string, instanceId: string, pid: number, cwd: string): Step[] {
  let sequence = 0;
  const step = (event: string, status: string, detail: string, tool = ""): Step => ({
    alias: "fleet-event",
    label: `pi.${event} (${status})`,
    payload: JSON.stringify({
      schema_version: 1,
      event_id: `pi.${event}`,
      session_id: sessionId,
      instance_id: instanceId,
      sequence: ++sequence,
      pid,
      cwd,
      status,
      detail,
      tool,
    }),
    expect: { status, detail, tool, last_event: `pi.${event}` },
  });
  return [
    step("session-start", "started", "session started"),
    step("before-agent-start", "running", "processing prompt"),
    step("agent-start", "running", "working"),
    step("tool-execution-start", "running", "bash", "bash"),
    step("ui-prompt-start", "waiting", "waiting for user input"),
    step("ui-prompt-end", "running", "working"),
    step("agent-end", "idle", "done"),
    step("agent-end", "error", "turn failed (aborted)"),
    step("agent-settled", "idle", "waiting for the next prompt"),
    step("session-shutdown", "ended", "session closed"),
  ];
}
