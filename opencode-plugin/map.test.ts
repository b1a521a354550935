import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMapper } from "./map.js";

type Mapper = ReturnType<typeof createMapper>;
type Step = { kind: "event" | "tool.execute.before"; payload: unknown };

/** Replay a stream of plugin calls; returns [event, status, detail, tool] per transition (session id when asked). */
function replay(steps: readonly Step[], mapper: Mapper = createMapper(), withSession = false) {
  const out: string[][] = [];
  for (const step of steps) {
    const next = step.kind === "event" ? mapper.mapEvent(step.payload) : mapper.mapToolStart((step.payload as { input?: unknown }).input);
    if (next) out.push([...(withSession ? [next.sessionId] : []), next.event, next.status, next.detail, next.tool]);
  }
  return out;
}

const fixture = (name: string): Step[] =>
  readFileSync(new URL(`./fixtures/${name}.jsonl`, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Step);

const event = (type: string, properties: Record<string, unknown>): Step => ({ kind: "event", payload: { type, properties } });
const created = (id: string, parentID?: string) =>
  event("session.created", { sessionID: id, info: { id, directory: "/work/app", ...(parentID ? { parentID } : {}) } });
const status = (sessionID: string, type: string, extra: Record<string, unknown> = {}) =>
  event("session.status", { sessionID, status: { type, ...extra } });
const tool = (sessionID: string, name: string): Step => ({ kind: "tool.execute.before", payload: { input: { tool: name, sessionID } } });
const asked = (sessionID: string, id: string, permission = "bash") => event("permission.asked", { id, sessionID, permission });
const replied = (sessionID: string, requestID: string, reply = "once") => event("permission.replied", { sessionID, requestID, reply });

describe("OpenCode events to states (captured from OpenCode 1.18.33's TUI)", () => {
  it("a tool run behind a permission dialog: running, running(bash), waiting, running after the reply, idle", () => {
    // This capture starts at the first prompt of a session created earlier in the run: no session.created in it.
    expect(replay(fixture("tui-runtool-permission"))).toEqual([
      ["session-start", "started", "session started", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""], // repeats: the plugin sends each state once
      ["tool-execute-before", "running", "bash", "bash"],
      ["permission-asked", "waiting", "permission: bash", "bash"],
      ["permission-replied", "running", "bash", "bash"],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
    ]);
  });

  it("a question from the model (its question tool): running(question), waiting with the question, running after the answer, idle", () => {
    expect(replay(fixture("tui-question"))).toEqual([
      ["session-start", "started", "session started", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["tool-execute-before", "running", "question", "question"],
      ["question-asked", "waiting", "question: Which colour should the synthetic provider paint the shed?", "question"],
      ["question-replied", "running", "question", "question"],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
    ]);
  });

  it("a question dismissed with Esc (question.rejected): running, then idle: OpenCode ends the turn", () => {
    expect(replay(fixture("tui-question-dismissed")).slice(3)).toEqual([
      ["tool-execute-before", "running", "question", "question"],
      ["question-asked", "waiting", "question: Which colour should the synthetic provider paint the shed?", "question"],
      ["question-replied", "running", "question", "question"],
      ["session-idle", "idle", "waiting for the next prompt", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
    ]);
  });

  it("a subagent (the task tool) whose shell call waits for permission: one session, the child's tool and dialog its root's", () => {
    const steps = fixture("tui-subagent");
    const children = new Set(
      steps.flatMap((step) => {
        const info = (step.payload as { properties?: { info?: { id?: string; parentID?: string } } }).properties?.info;
        return info?.parentID ? [info.id] : [];
      }),
    );
    expect(children.size).toBe(1); // the capture holds a child session, and its events
    const out = replay(steps, createMapper(), true);
    expect(new Set(out.map(([session]) => session)).size).toBe(1);
    expect(out.map((transition) => transition.slice(1))).toEqual([
      ["session-start", "started", "session started", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["tool-execute-before", "running", "task", "task"],
      ["tool-execute-before", "running", "bash", "bash"], // the child's
      ["permission-asked", "waiting", "permission: bash", "bash"], // the child's dialog
      ["permission-replied", "running", "bash", "bash"],
      // the child's busy, idle and session.idle are not the root's: its turn is still running
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
    ]);
  });

  it("a provider failure: error, which the idle OpenCode sends after it does not hide", () => {
    expect(replay(fixture("tui-failapi"))).toEqual([
      ["session-busy", "running", "processing prompt", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-error", "error", "turn failed: APIError 400: synthetic failure requested by FAILAPI", ""],
    ]);
  });
});

describe("OpenCode events to states (composed streams, shaped like the captured ones)", () => {
  it("keeps several sessions of one process apart", () => {
    const mapper = createMapper();
    expect(replay([created("a"), created("b"), status("a", "busy"), status("b", "idle")], mapper, true)).toEqual([
      ["a", "session-start", "started", "session started", ""],
      ["b", "session-start", "started", "session started", ""],
      ["a", "session-busy", "running", "processing prompt", ""],
      ["b", "session-idle", "idle", "waiting for the next prompt", ""],
    ]);
  });

  it("folds a subagent's child session into its root: its tools and dialogs are the root's, its idle and errors are not", () => {
    const steps = [
      created("root"),
      status("root", "busy"),
      tool("root", "task"),
      created("child", "root"),
      status("child", "busy"),
      tool("child", "grep"),
      asked("child", "per_1", "edit"),
      replied("child", "per_1"),
      event("session.error", { sessionID: "child", error: { name: "APIError" } }),
      status("child", "idle"),
      event("session.idle", { sessionID: "child" }),
      event("session.deleted", { sessionID: "child", info: { id: "child", parentID: "root" } }),
      status("root", "idle"),
    ];
    expect(replay(steps, createMapper(), true)).toEqual([
      ["root", "session-start", "started", "session started", ""],
      ["root", "session-busy", "running", "processing prompt", ""],
      ["root", "tool-execute-before", "running", "task", "task"],
      ["root", "tool-execute-before", "running", "grep", "grep"],
      ["root", "permission-asked", "waiting", "permission: edit", "edit"],
      ["root", "permission-replied", "running", "grep", "grep"],
      ["root", "session-idle", "idle", "waiting for the next prompt", ""],
    ]);
  });

  it("stays waiting until every open dialog of the session is answered; tools meanwhile are held back", () => {
    const steps = [
      created("s"),
      asked("s", "p1"),
      tool("s", "read"),
      asked("s", "p2", "edit"),
      replied("s", "p1"),
      replied("s", "unknown"),
      replied("s", "p2", "reject"),
    ];
    expect(replay(steps)).toEqual([
      ["session-start", "started", "session started", ""],
      ["permission-asked", "waiting", "permission: bash", "bash"],
      ["permission-replied", "running", "read", "read"],
    ]);
  });

  it("a question and a permission dialog open together: waiting until both are answered; a dismissed question answers too", () => {
    const question = (id: string, text: unknown) =>
      event("question.asked", { id, sessionID: "s", questions: [{ question: text, header: "h", options: [] }] });
    const steps = [
      created("s"),
      question("q1", "Which one?"),
      asked("s", "p1"),
      event("question.rejected", { sessionID: "s", requestID: "q1" }),
      replied("s", "p1"),
      question("q2", "x".repeat(400)),
      event("question.replied", { sessionID: "s", requestID: "q2", answers: [["A"]] }),
      event("question.asked", { id: "q3", sessionID: "s" }),
    ];
    expect(replay(steps)).toEqual([
      ["session-start", "started", "session started", ""],
      ["question-asked", "waiting", "question: Which one?", "question"],
      ["permission-replied", "running", "processing prompt", ""],
      ["question-asked", "waiting", expect.stringMatching(/^question: x+…?$/), "question"],
      ["question-replied", "running", "processing prompt", ""],
      ["question-asked", "waiting", "question asked", "question"],
    ]);
  });

  it("a provider's 429 is a limit (session-limited), in the provider's words; another status is a failed turn", () => {
    const apiError = (statusCode: number) => ({ name: "APIError", data: { message: "Rate limit reached for requests", statusCode } });
    expect(
      replay([
        created("s"),
        event("session.error", { sessionID: "s", error: apiError(429) }),
        status("s", "busy"),
        event("session.error", { sessionID: "s", error: apiError(503) }),
      ]),
    ).toEqual([
      ["session-start", "started", "session started", ""],
      ["session-limited", "error", "APIError 429: Rate limit reached for requests", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["session-error", "error", "turn failed: APIError 503: Rate limit reached for requests", ""],
    ]);
  });

  it("Esc (MessageAbortedError) is the user's interruption: idle, turn interrupted, through the idle after it; a dialog it closes too", () => {
    const aborted = { name: "MessageAbortedError", data: { message: "The operation was aborted." } };
    const steps = [
      created("s"),
      status("s", "busy"),
      asked("s", "per_1"),
      event("session.error", { sessionID: "s", error: aborted }),
      status("s", "idle"),
      event("session.idle", { sessionID: "s" }),
      status("s", "busy"),
    ];
    expect(replay(steps)).toEqual([
      ["session-start", "started", "session started", ""],
      ["session-busy", "running", "processing prompt", ""],
      ["permission-asked", "waiting", "permission: bash", "bash"],
      ["session-interrupted", "idle", "turn interrupted", ""],
      ["session-busy", "running", "processing prompt", ""],
    ]);
  });

  it("retries are running with the reason; a new turn after an error reports again", () => {
    const steps = [
      created("s"),
      event("session.error", { sessionID: "s", error: { name: "UnknownError", data: { message: "boom" } } }),
      event("session.idle", { sessionID: "s" }),
      status("s", "retry", { attempt: 2, message: "rate limited" }),
      status("s", "idle"),
    ];
    expect(replay(steps)).toEqual([
      ["session-start", "started", "session started", ""],
      ["session-error", "error", "turn failed: UnknownError: boom", ""],
      ["session-retry", "running", "retrying (attempt 2): rate limited", ""],
      ["session-idle", "idle", "waiting for the next prompt", ""],
    ]);
  });

  it("ends a deleted session, and reports nothing more of it", () => {
    const mapper = createMapper();
    const steps = [created("a"), created("b"), event("session.deleted", { sessionID: "b" }), status("b", "busy"), tool("b", "bash")];
    expect(replay(steps, mapper, true)).toEqual([
      ["a", "session-start", "started", "session started", ""],
      ["b", "session-start", "started", "session started", ""],
      ["b", "session-deleted", "ended", "session deleted", ""],
    ]);
  });

  it("ignores what it cannot attribute, and never throws on hostile input", () => {
    const mapper = createMapper();
    for (const payload of [
      undefined,
      null,
      7,
      "x",
      {},
      { type: "session.status" },
      { type: "session.created", properties: { info: { id: 5 } } },
    ])
      expect(mapper.mapEvent(payload)).toBeUndefined();
    expect(mapper.mapEvent({ type: "session.idle", properties: { sessionID: "x".repeat(600) } })).toBeUndefined();
    expect(mapper.mapEvent({ type: "session.idle", properties: { sessionID: "bad\u0000id" } })).toBeUndefined();
    for (const input of [undefined, null, {}, { sessionID: 3 }]) expect(mapper.mapToolStart(input)).toBeUndefined();
    // A parent cycle (hostile) is walked a bounded number of times.
    mapper.mapEvent({ type: "session.updated", properties: { info: { id: "p", parentID: "q" } } });
    mapper.mapEvent({ type: "session.updated", properties: { info: { id: "q", parentID: "p" } } });
    expect(mapper.mapToolStart({ sessionID: "p", tool: "bash" })).toMatchObject({ status: "running" });
  });
});
