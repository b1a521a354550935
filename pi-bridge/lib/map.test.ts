import { describe, expect, it } from "vitest";
import { PI_EVENTS, createMapper } from "./map.js";
import { byteLength } from "./text.js";

type Step = [name: string, event: unknown];

/** Feed events in order; return what each produced, as `event:status[:detail]` (undefined when nothing). */
function run(steps: readonly Step[], { details = false } = {}) {
  const { map } = createMapper();
  return steps.map(([name, event]) => {
    const next = map(name, event);
    if (!next) return undefined;
    return details ? `${next.event}:${next.status}:${next.detail}` : `${next.event}:${next.status}`;
  });
}

const assistant = (stopReason: string, extra: Record<string, unknown> = {}) => ({
  messages: [
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "All good." }], stopReason, ...extra },
  ],
});

describe("Pi events -> transitions", () => {
  it("maps one prompt with a tool call on Pi 1.6 (agent_settled reports the final idle)", () => {
    expect(
      run([
        ["session_start", { reason: "startup" }],
        ["before_agent_start", { prompt: "x" }],
        ["agent_start", {}],
        ["tool_execution_start", { toolName: "bash", toolCallId: "c1", args: { command: "echo hi" } }],
        ["turn_end", {}],
        ["agent_end", assistant("stop")],
        ["agent_settled", { aborted: false }],
        ["session_shutdown", { reason: "quit" }],
      ]),
    ).toEqual([
      "session-start:started",
      "before-agent-start:running",
      "agent-start:running",
      "tool-execution-start:running",
      undefined,
      "agent-end:idle", // not yet known that this Pi has agent_settled
      "agent-settled:idle",
      "session-shutdown:ended",
    ]);
  });

  it("stops reporting idle at agent_end once agent_settled has been seen (more work may follow agent_end)", () => {
    const results = run([
      ["agent_start", {}],
      ["agent_end", assistant("stop")],
      ["agent_settled", {}],
      ["agent_start", {}],
      ["agent_end", assistant("stop")],
      ["agent_start", {}], // a queued follow-up: still running, no idle flicker in between
      ["agent_end", assistant("stop")],
      ["agent_settled", {}],
    ]);
    expect(results).toEqual([
      "agent-start:running",
      "agent-end:idle",
      "agent-settled:idle",
      "agent-start:running",
      undefined,
      "agent-start:running",
      undefined,
      "agent-settled:idle",
    ]);
  });

  it("shares what it learned with the next session's mapper in the same process", () => {
    const capabilities = { settled: false };
    const first = createMapper({ capabilities });
    first.map("agent_start", {});
    expect(first.map("agent_end", assistant("stop"))?.status).toBe("idle");
    first.map("agent_settled", {});
    const second = createMapper({ capabilities }); // Pi imported the extension again for /new
    second.map("agent_start", {});
    expect(second.map("agent_end", assistant("stop"))).toBeUndefined();
    expect(second.map("agent_settled", {})?.event).toBe("agent-settled");
  });

  it("reports idle at agent_end on Pi without agent_settled (the 0.73 line)", () => {
    expect(
      run([
        ["session_start", {}],
        ["agent_start", {}],
        ["agent_end", assistant("stop")],
        ["agent_start", {}],
        ["agent_end", assistant("toolUse")],
      ]),
    ).toEqual(["session-start:started", "agent-start:running", "agent-end:idle", "agent-start:running", "agent-end:idle"]);
  });

  it("reports a failed run as error, which agent_settled does not overwrite; an aborted run (Esc) as idle, interrupted", () => {
    expect(
      run(
        [
          ["agent_start", {}],
          ["agent_end", assistant("error", { errorMessage: "400 bad\nrequest \u001b[31mred" })],
          ["agent_settled", { aborted: false }],
          ["agent_start", {}],
          ["agent_end", assistant("aborted")],
          ["agent_settled", { aborted: true }],
          ["agent_start", {}], // the next prompt clears the error
          ["agent_end", assistant("stop")],
          ["agent_settled", {}],
        ],
        { details: true },
      ),
    ).toEqual([
      "agent-start:running:processing prompt",
      "agent-end:error:turn failed: 400 bad request [31mred",
      undefined,
      "agent-start:running:processing prompt",
      "agent-end:idle:turn interrupted",
      "agent-settled:idle:turn interrupted",
      "agent-start:running:processing prompt",
      undefined, // agent_settled was seen above
      "agent-settled:idle:All good.",
    ]);
  });

  it("says `turn failed` without a message, and cuts long messages", () => {
    const { map } = createMapper();
    expect(map("agent_end", assistant("error"))?.detail).toBe("turn failed");
    const long = map("agent_end", assistant("error", { errorMessage: "é".repeat(2000) }));
    expect(long?.status).toBe("error");
    expect(byteLength(long?.detail ?? "")).toBeLessThanOrEqual(512);
  });

  it("treats nested UI prompts as one waiting span, and holds running events until the outermost ends", () => {
    expect(
      run(
        [
          ["agent_start", {}],
          ["ui_prompt_start", { kind: "confirm", title: "Allow rm -rf?" }],
          ["ui_prompt_start", { kind: "select" }],
          ["tool_execution_start", { toolName: "read" }], // a parallel tool: remembered, not shown over "waiting"
          ["ui_prompt_end", {}],
          ["ui_prompt_end", {}],
          ["ui_prompt_end", {}], // unbalanced: ignored
        ],
        { details: true },
      ),
    ).toEqual([
      "agent-start:running:processing prompt",
      "ui-prompt-start:waiting:waiting for input: Allow rm -rf?",
      undefined,
      undefined,
      undefined,
      "ui-prompt-end:running:read",
      undefined,
    ]);
  });

  it("returns to idle when a prompt opened while no run was in progress ends", () => {
    expect(
      run(
        [
          ["session_start", {}],
          ["ui_prompt_start", { kind: "input" }],
          ["ui_prompt_end", {}],
        ],
        { details: true },
      ),
    ).toEqual([
      "session-start:started:session started",
      "ui-prompt-start:waiting:waiting for input",
      "ui-prompt-end:idle:waiting for the next prompt",
    ]);
  });

  it("keeps waiting when the run settles under an open prompt, then returns to idle", () => {
    expect(
      run([
        ["agent_start", {}],
        ["agent_end", assistant("stop")],
        ["agent_settled", {}],
        ["ui_prompt_start", {}],
        ["agent_start", {}],
        ["agent_end", assistant("stop")],
        ["agent_settled", {}],
        ["ui_prompt_end", {}],
      ]),
    ).toEqual([
      "agent-start:running",
      "agent-end:idle",
      "agent-settled:idle",
      "ui-prompt-start:waiting",
      undefined,
      undefined,
      undefined,
      "ui-prompt-end:idle",
    ]);
  });

  it("resets prompt nesting at a session start", () => {
    expect(
      run(
        [
          ["ui_prompt_start", {}],
          ["session_start", { reason: "new" }],
          ["agent_start", {}],
        ],
        { details: true },
      ),
    ).toEqual(["ui-prompt-start:waiting:waiting for input", "session-start:started:new session", "agent-start:running:processing prompt"]);
  });

  it("names the tool, display-safe and at most 256 bytes", () => {
    const { map } = createMapper();
    expect(map("tool_execution_start", { toolName: "bash\n\u202e" })).toEqual({
      event: "tool-execution-start",
      status: "running",
      detail: "bash",
      tool: "bash",
    });
    const long = map("tool_execution_start", { toolName: "t".repeat(1000) });
    expect(byteLength(long?.tool ?? "")).toBeLessThanOrEqual(256);
    expect(map("tool_execution_start", {})).toMatchObject({ status: "running", tool: "" });
  });

  it("summarizes the last reply in one line of at most 160 bytes", () => {
    const { map } = createMapper();
    const reply = {
      messages: [
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm" },
            { type: "text", text: "line one\nline two " + "x".repeat(400) },
          ],
          stopReason: "stop",
        },
      ],
    };
    const idle = map("agent_end", reply);
    expect(idle?.detail.startsWith("line one line two x")).toBe(true);
    expect(byteLength(idle?.detail ?? "")).toBeLessThanOrEqual(160);
  });

  it("names the shutdown reason when a session is replaced", () => {
    const { map } = createMapper();
    expect(map("session_shutdown", { reason: "quit" })?.detail).toBe("session closed");
    expect(map("session_shutdown", { reason: "new" })?.detail).toBe("session closed (new)");
    expect(map("session_shutdown", undefined)?.detail).toBe("session closed");
  });

  it("ignores events it does not map and survives malformed ones", () => {
    const { map } = createMapper();
    for (const name of ["turn_start", "message_update", "input", "nonsense"]) expect(map(name, {})).toBeUndefined();
    for (const name of PI_EVENTS)
      for (const event of [undefined, null, 42, "text", [], { messages: "nope" }, { messages: [null, 7] }])
        expect(() => map(name, event)).not.toThrow();
  });
});
