// Copilot CLI 1.0.102's real hook payloads (fixtures/, captured from an interactive run in tmux against the synthetic
// provider) read through the hook's input stage with this harness's field names, then mapped to states.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NativePayloadSchema } from "../../core/schema.ts";
import { nativePayload, type InputValue } from "../../hook/input.ts";
import type { NativeAlias } from "../contract.ts";
import { interpretNative } from "../events.ts";
import { copilotHarness } from "./harness.ts";
import { COPILOT_HOOKS } from "./install.ts";

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", `${name}.json`), "utf8")).stdin as Record<string, unknown>;
const valueOf = (read: InputValue) => {
  if (!read.ok) throw new Error(`${read.stage}: ${read.detail}`);
  return read.value as Record<string, unknown>;
};
const read = (payload: unknown) => valueOf(nativePayload(Buffer.from(JSON.stringify(payload)), copilotHarness.nativeFields));
const interpret = (alias: NativeAlias, payload: unknown) => interpretNative(alias, NativePayloadSchema.parse(read(payload)));
const SESSION = "6e57a63f-d469-467f-a5f7-f2e4b586f3ac";

describe("Copilot CLI payloads", () => {
  it("keeps the camelCase identity and tool fields under the pipeline's names, and nothing else", () => {
    expect(read(fixture("postToolUse"))).toEqual({ session_id: SESSION, cwd: "/home/user/project", tool_name: "bash" });
    expect(read(fixture("agentStop"))).toEqual({
      session_id: SESSION,
      cwd: "/home/user/project",
      transcript_path: `/home/user/.copilot/session-state/${SESSION}/events.jsonl`,
    });
  });

  it.each<[string, string, string, string, string]>([
    ["sessionStart", "started", "session started", "", "clear"],
    ["userPromptSubmitted", "running", "processing prompt", "", "clear"],
    ["preToolUse", "running", "bash", "bash", "tool-start"],
    ["notification", "waiting", "permission requested", "", "permission"],
    ["postToolUse", "running", "bash finished", "bash", "tool-end"],
    ["agentStop", "idle", "", "", "clear"],
    ["errorOccurred", "error", "turn failed (model call error)", "", "clear"],
    ["sessionEnd", "ended", "session closed", "", "clear"],
  ])("%s -> %s", (event, status, detail, tool, wait) => {
    const spec = COPILOT_HOOKS.find((candidate) => candidate.event === event);
    expect(spec).toBeDefined();
    expect(interpret(spec?.alias as NativeAlias, fixture(event))).toEqual({ kind: "apply", transition: { status, detail, tool, wait } });
  });

  it("errorOccurred is a failed turn only for a model call; other contexts are ignored", () => {
    for (const context of ["tool_execution", "hook", "system", ""])
      expect(interpret("error-occurred", { ...fixture("errorOccurred"), errorContext: context }).kind).toBe("ignore");
    const { errorContext: _omitted, ...without } = fixture("errorOccurred");
    expect(interpret("error-occurred", without).kind).toBe("ignore");
  });

  it("an elicitation notification waits for input", () => {
    expect(interpret("notification", { ...fixture("notification"), notification_type: "elicitation_dialog" })).toMatchObject({
      transition: { status: "waiting", wait: "input" },
    });
  });

  it("reads a field only under Copilot's own name (a snake_case twin is not a second source)", () => {
    expect(read({ ...fixture("preToolUse"), session_id: "other", tool_name: "Other" })).toMatchObject({
      session_id: SESSION,
      tool_name: "bash",
    });
    expect(nativePayload(Buffer.from(JSON.stringify({ cwd: "/w", session_id: "s" })), copilotHarness.nativeFields)).toEqual({
      ok: true,
      value: { cwd: "/w" },
    });
  });

  it("other harnesses' payloads are read as before, a camelCase member ignored", () => {
    const value = valueOf(nativePayload(Buffer.from(JSON.stringify({ session_id: "s", cwd: "/w", sessionId: { big: "x".repeat(5000) } }))));
    expect(value).toEqual({ session_id: "s", cwd: "/w" });
  });

  it("a huge tool result after the identity fields is read past (cut at the read cap)", () => {
    const post = Buffer.from(JSON.stringify({ ...fixture("postToolUse"), toolResult: { textResultForLlm: "x".repeat(200_000) } }));
    const cut = nativePayload({ bytes: post.subarray(0, 60_000), end: "cap" }, copilotHarness.nativeFields);
    expect(cut).toMatchObject({ ok: true, value: { session_id: SESSION, tool_name: "bash" } });
  });
});
