import { describe, expect, it } from "vitest";
import { interpretFleetEvent, interpretNative } from "./events.ts";
import { findHarness } from "./registry.ts";
import type { Harness, NativeAlias } from "./contract.ts";
import type { FleetEvent } from "../core/schema.ts";

const base = { session_id: "s1", cwd: "/w" };
const pi = findHarness("pi") as Harness;

describe("native aliases", () => {
  it.each<[NativeAlias, Record<string, unknown>, string, string, string, string]>([
    ["session-start", {}, "started", "session started", "", "clear"],
    ["prompt-submit", { prompt: "secret prompt text" }, "running", "processing prompt", "", "clear"],
    ["tool-use", { tool_name: "Bash", tool_input: { command: "rm -rf /" } }, "running", "Bash", "Bash", "tool-start"],
    ["tool-use", {}, "running", "", "", "tool-start"],
    ["tool-done", { tool_name: "Edit", tool_response: "..." }, "running", "Edit finished", "Edit", "tool-end"],
    ["tool-failed", { tool_name: "Bash", error: "exit 1" }, "running", "Bash failed", "Bash", "tool-end"],
    ["permission-request", { tool_name: "Bash" }, "waiting", "permission: Bash", "Bash", "permission"],
    ["permission-request", {}, "waiting", "permission requested", "", "permission"],
    [
      "notification",
      { notification_type: "permission_prompt", message: "Claude needs your permission" },
      "waiting",
      "permission requested",
      "",
      "permission",
    ],
    ["notification", { notification_type: "elicitation_dialog" }, "waiting", "waiting for user input", "", "input"],

    ["stop", { last_assistant_message: "Done.\nAll tests pass." }, "idle", "Done. All tests pass.", "", "clear"],
    ["stop", {}, "idle", "", "", "clear"],
    ["stop", { last_assistant_message: null }, "idle", "", "", "clear"],
    ["stop-failure", { error: "overloaded" }, "error", "turn failed (API error)", "", "clear"],
    ["error-occurred", { error_context: "model_call" }, "error", "turn failed (model call error)", "", "clear"],
    ["elicitation", {}, "waiting", "waiting for user input", "", "input"],
    ["interrupt", {}, "idle", "turn interrupted", "", "clear"],
    ["session-end", { reason: "prompt_input_exit" }, "ended", "session closed", "", "clear"],
  ])("%s %j -> %s", (alias, extra, status, detail, tool, wait) => {
    expect(interpretNative(alias, { ...base, ...extra })).toEqual({ kind: "apply", transition: { status, detail, tool, wait } });
  });

  it("carries the harness's tool_use_id of a tool call, and drops one it cannot keep (never rejecting the event)", () => {
    expect(interpretNative("tool-use", { ...base, tool_name: "Read", tool_use_id: "toolu_01" })).toMatchObject({
      transition: { toolUseId: "toolu_01" },
    });
    expect(interpretNative("tool-done", { ...base, tool_name: "Read", tool_use_id: "call_9" })).toMatchObject({
      transition: { toolUseId: "call_9" },
    });
    for (const bad of [42, "", "x".repeat(129), "a\u0000b", { id: 1 }]) {
      const result = interpretNative("tool-done", { ...base, tool_name: "Read", tool_use_id: bad });
      expect(result.kind === "apply" && "toolUseId" in result.transition).toBe(false);
    }
  });

  it("the idle reminder (idle_prompt) sets idle but never replaces an error", () => {
    expect(interpretNative("notification", { ...base, notification_type: "idle_prompt" })).toEqual({
      kind: "apply",
      transition: { status: "idle", detail: "waiting for the next prompt", tool: "", yieldsTo: ["error"], wait: "clear" },
    });
  });

  it("ignores an error report that is not a failed model call (Copilot CLI's errorOccurred)", () => {
    expect(interpretNative("error-occurred", { ...base, error_context: "tool_execution" }).kind).toBe("ignore");
    expect(interpretNative("error-occurred", base).kind).toBe("ignore");
  });

  it("ignores notification types that are not a state change", () => {
    expect(interpretNative("notification", { ...base, notification_type: "auth_success" }).kind).toBe("ignore");
    expect(interpretNative("notification", base).kind).toBe("ignore");
  });

  it("keeps only a short display-safe summary of the last assistant message", () => {
    const result = interpretNative("stop", { ...base, last_assistant_message: `\u001b[31m${"long ".repeat(500)}` });
    expect(result.kind === "apply" && Buffer.byteLength(result.transition.detail)).toBeLessThanOrEqual(160);
    expect(result.kind === "apply" && result.transition.detail).not.toContain("\u001b");
  });

  it("bounds tool names and strips control characters from them", () => {
    const result = interpretNative("tool-use", { ...base, tool_name: `mcp__x__${"y".repeat(400)}\u0007` });
    expect(result.kind === "apply" && Buffer.byteLength(result.transition.tool)).toBeLessThanOrEqual(256);
  });
});

describe("normalized fleet events", () => {
  const event = (overrides: Partial<FleetEvent>): FleetEvent => ({
    schema_version: 1,
    event_id: "pi.session-start",
    session_id: "s",
    instance_id: "i",
    sequence: 1,
    pid: 10,
    cwd: "/w",
    status: "started",
    detail: "session started",
    tool: "",
    ...overrides,
  });

  it("gives the emitter's events the same wait rule: a dialog opens a wait, its end answers it, a tool starting leaves it", () => {
    const waitOf = (eventId: string, status: FleetEvent["status"]) => {
      const checked = interpretFleetEvent(pi, event({ event_id: eventId, status }));
      return checked.ok ? (checked.transition.wait ?? "none") : checked.detail;
    };
    expect(waitOf("pi.ui-prompt-start", "waiting")).toBe("input");
    expect(waitOf("pi.ui-prompt-end", "running")).toBe("answered");
    expect(waitOf("pi.tool-execution-start", "running")).toBe("none");
    for (const [id, status] of [
      ["pi.agent-start", "running"],
      ["pi.before-agent-start", "running"],
      ["pi.agent-end", "idle"],
      ["pi.agent-settled", "idle"],
      ["pi.session-start", "started"],
      ["pi.session-shutdown", "ended"],
    ] as const) {
      expect(waitOf(id, status)).toBe("clear");
    }
  });

  it("accepts allowlisted events with an allowed status", () => {
    expect(interpretFleetEvent(pi, event({}))).toMatchObject({ ok: true, eventName: "session-start" });
    // OpenCode's plugin reports a provider's 429 as its own event: a limit with the provider's words.
    const opencode = findHarness("opencode") as Harness;
    const said = "APIError 429: Rate limit reached for requests";
    expect(interpretFleetEvent(opencode, event({ event_id: "opencode.session-limited", status: "error", detail: said }))).toMatchObject({
      ok: true,
      transition: { status: "error", detail: said, limit: { kind: "rate_limit", stated: "429", message: said } },
    });
    const failed = interpretFleetEvent(opencode, event({ event_id: "opencode.session-error", status: "error", detail: "turn failed" }));
    expect(failed.ok && failed.transition.limit).toBeUndefined();
    expect(interpretFleetEvent(pi, event({ event_id: "pi.agent-end", status: "error" }))).toMatchObject({ ok: true });
    expect(interpretFleetEvent(pi, event({ event_id: "pi.agent-end", status: "idle" }))).toMatchObject({ ok: true });
  });

  it.each([
    ["claude.session-start", "started", "namespace"],
    ["pi.made-up", "running", "unsupported"],
    ["pi.session-start", "running", "cannot set status"],
    ["pi.session-shutdown", "idle", "cannot set status"],
  ] as const)("rejects %s with status %s", (eventId, status, message) => {
    const result = interpretFleetEvent(pi, event({ event_id: eventId, status }));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.detail).toContain(message);
  });
});

describe('limits, compaction and subagents (docs/contract.md, "Limits", "Compaction and subagents")', () => {
  it("a StopFailure whose error is a limit is an error with the harness's class and words", () => {
    const said = "You've hit your 5-hour limit · resets 10:32pm (UTC)";
    expect(interpretNative("stop-failure", { ...base, error: "rate_limit", last_assistant_message: said })).toEqual({
      kind: "apply",
      transition: {
        status: "error",
        detail: said,
        tool: "",
        wait: "clear",
        limit: { kind: "rate_limit", stated: "rate_limit", message: said },
      },
    });
    expect(interpretNative("stop-failure", { ...base, error: "billing_error" })).toMatchObject({
      transition: { status: "error", detail: "billing limit reached (billing_error)", limit: { kind: "billing", stated: "billing_error" } },
    });
    // Kimi Code names the class of its error instead: its rate-limit class is a limit, in its words.
    expect(
      interpretNative("stop-failure", { ...base, error_type: "APIProviderRateLimitError", error_message: "429 Too Many Requests" }),
    ).toMatchObject({
      transition: { status: "error", detail: "429 Too Many Requests", limit: { kind: "rate_limit", stated: "APIProviderRateLimitError" } },
    });
    // Any other class of error is a failed turn, not a limit.
    for (const error of ["overloaded", "server_error", "invalid_request", "rate_limits", 429])
      expect(interpretNative("stop-failure", { ...base, error } as never)).toEqual({
        kind: "apply",
        transition: { status: "error", detail: "turn failed (API error)", tool: "", wait: "clear" },
      });
  });

  it("PreCompact: running, compacting; PostCompact: its trigger, for apply to restore the state before", () => {
    expect(interpretNative("compact-start", { ...base, trigger: "manual" })).toEqual({
      kind: "apply",
      transition: { status: "running", detail: "compacting", tool: "", compaction: { phase: "start", trigger: "manual" } },
    });
    expect(interpretNative("compact-end", { ...base, trigger: "auto" })).toMatchObject({
      transition: { detail: "compacted", compaction: { phase: "end", trigger: "auto" } },
    });
  });

  it("SubagentStart and SubagentStop name the subagent; without a usable agent_id they are ignored", () => {
    expect(interpretNative("subagent-start", { ...base, agent_id: "a1", agent_type: "Explore" })).toMatchObject({
      transition: { subagent: { op: "start", id: "a1", type: "Explore" } },
    });
    expect(interpretNative("subagent-stop", { ...base, agent_id: "a1" })).toMatchObject({
      transition: { subagent: { op: "stop", id: "a1", type: "" } },
    });
    for (const agent_id of [undefined, "", "x".repeat(129)])
      expect(interpretNative("subagent-start", { ...base, agent_id })).toMatchObject({ kind: "ignore" });
  });
});
