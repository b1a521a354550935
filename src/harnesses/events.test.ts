import { describe, expect, it } from "vitest";
import { interpretFleetEvent, interpretNative } from "./events.ts";
import { findHarness } from "./registry.ts";
import type { Harness, NativeAlias } from "./contract.ts";
import type { FleetEvent } from "../core/schema.ts";

const base = { session_id: "s1", cwd: "/w" };
const pi = findHarness("pi") as Harness;

describe("native aliases", () => {
  it.each<[NativeAlias, Record<string, unknown>, string, string, string]>([
    ["session-start", {}, "started", "session started", ""],
    ["prompt-submit", { prompt: "secret prompt text" }, "running", "processing prompt", ""],
    ["tool-use", { tool_name: "Bash", tool_input: { command: "rm -rf /" } }, "running", "Bash", "Bash"],
    ["tool-use", {}, "running", "", ""],
    ["tool-done", { tool_name: "Edit", tool_response: "..." }, "running", "Edit finished", "Edit"],
    ["permission-request", { tool_name: "Bash" }, "waiting", "permission: Bash", "Bash"],
    ["permission-request", {}, "waiting", "permission requested", ""],
    ["notification", { notification_type: "permission_prompt", message: "Claude needs your permission" }, "waiting", "permission requested", ""],
    ["notification", { notification_type: "elicitation_dialog" }, "waiting", "waiting for user input", ""],

    ["stop", { last_assistant_message: "Done.\nAll tests pass." }, "idle", "Done. All tests pass.", ""],
    ["stop", {}, "idle", "", ""],
    ["stop", { last_assistant_message: null }, "idle", "", ""],
    ["stop-failure", { error: "overloaded" }, "error", "turn failed (API error)", ""],
    ["elicitation", {}, "waiting", "waiting for user input", ""],
    ["interrupt", {}, "idle", "turn interrupted", ""],
    ["session-end", { reason: "prompt_input_exit" }, "ended", "session closed", ""],
  ])("%s %j -> %s", (alias, extra, status, detail, tool) => {
    expect(interpretNative(alias, { ...base, ...extra })).toEqual({ kind: "apply", transition: { status, detail, tool } });
  });

  it("the idle reminder (idle_prompt) sets idle but never replaces an error", () => {
    expect(interpretNative("notification", { ...base, notification_type: "idle_prompt" })).toEqual({ kind: "apply", transition: { status: "idle", detail: "waiting for the next prompt", tool: "", yieldsTo: ["error"] } });
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

  it("accepts allowlisted events with an allowed status", () => {
    expect(interpretFleetEvent(pi, event({}))).toMatchObject({ ok: true, eventName: "session-start" });
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
