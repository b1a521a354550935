// The replay corpus through the real hook pipeline and the real store: after each event the record says what the
// harness stated so far (docs/contract.md, "Waiting"), and at the end readers show the state the harness last stated.
// Captured streams come from the real Claude Code 2.1.332 (scripts/capture-replay.mjs); composed ones from captured
// Codex payloads and from the Pi bridge's payload format (test/fixtures/replay/README.md).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digestOf } from "../src/core/identity.ts";
import { explainSession } from "../src/fleet/explain.ts";
import { loadFleet } from "../src/fleet/sessions.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { readRecord, recordPath } from "../src/store/records.ts";
import { REPLAY_EPOCH, deliver, loadStream, recordIdOf, streamNames, streamProcesses, type Stream } from "./replay.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

type State = readonly [status: string, detail: string, tool?: string];

interface Expectation {
  /** The event's record right after the event at that index. */
  readonly after: Record<number, State>;
  /** Every session at the end, as `list` shows it, by "<session id prefix>@<harness PID>". */
  readonly final: Record<string, State>;
}

const ASKED = "permission: Bash";
const EXPECTED: Record<string, Expectation> = {
  // Read finished before Bash asked; the notification 6 s later names no tool and keeps "permission: Bash".
  "claude-parallel-read-then-permission": {
    after: {
      3: ["running", "Read finished", "Read"],
      5: ["waiting", ASKED, "Bash"],
      6: ["waiting", ASKED, "Bash"],
      7: ["running", "Bash finished", "Bash"],
    },
    final: { "2a06764f@720": ["idle", "The tools ran; all done."] },
  },
  // The case, live: Bash (sleep) finishes while Read waits for permission; the session stays waiting.
  "claude-parallel-tool-finishes-while-asking": {
    after: {
      3: ["waiting", "permission: Read", "Read"],
      4: ["waiting", "permission: Read", "Read"],
      5: ["waiting", "permission: Read", "Read"],
      6: ["running", "Read finished", "Read"],
    },
    final: { "2a06764f@720": ["idle", "The tools ran; all done."] },
  },
  "claude-big-read": {
    after: { 2: ["running", "Read finished", "Read"] },
    final: { "2a06764f@720": ["idle", "The tools ran; all done."] },
  },
  "claude-big-write-permission": {
    after: { 2: ["waiting", "permission: Write", "Write"], 3: ["running", "Write finished", "Write"] },
    final: { "2a06764f@720": ["idle", "The tools ran; all done."] },
  },
  // Claude Code fires PostToolUseFailure (not PostToolUse) for the approved command that failed.
  "claude-tool-fails-after-approval": {
    after: { 2: ["waiting", ASKED, "Bash"], 3: ["running", "Bash failed", "Bash"] },
    final: { "2a06764f@720": ["idle", "The tools ran; all done."] },
  },
  "claude-same-tool-twice": {
    after: {
      2: ["waiting", ASKED, "Bash"],
      3: ["running", "Bash finished", "Bash"],
      5: ["waiting", ASKED, "Bash"],
      6: ["running", "Bash finished", "Bash"],
    },
    final: { "2a06764f@720": ["idle", "The tools ran; all done."] },
  },
  // Refusing (No, or Esc) fires no hook in Claude Code 2.1.332: the last thing it stated is the open permission.
  "claude-refused-with-no": { after: { 2: ["waiting", ASKED, "Bash"] }, final: { "2a06764f@720": ["waiting", ASKED, "Bash"] } },
  "claude-refused-with-esc": { after: { 2: ["waiting", ASKED, "Bash"] }, final: { "2a06764f@720": ["waiting", ASKED, "Bash"] } },
  // Esc while the reply streams fires no hook (anthropics/claude-code#9516).
  "claude-esc-mid-reply": { after: { 0: ["running", "processing prompt"] }, final: { "2a06764f@720": ["running", "processing prompt"] } },
  "claude-api-error-then-clear": {
    after: { 1: ["error", "turn failed (API error)"], 2: ["ended", "session closed"], 3: ["started", "session started"] },
    final: { "2a06764f@720": ["ended", "session closed"], "572ce26b@720": ["idle", "Hello from the capture model."] },
  },
  // /exit, then `claude --resume` in a new process: the same session id in another process is another record.
  "claude-exit-resume-kill": {
    after: { 2: ["ended", "session closed"], 3: ["started", "session started"] },
    final: { "572ce26b@720": ["ended", "session closed"], "572ce26b@4456": ["idle", "Hello from the capture model."] },
  },
  "codex-parallel-tools-one-asks": {
    after: { 4: ["waiting", ASKED, "Bash"], 5: ["waiting", ASKED, "Bash"], 6: ["running", "Bash finished", "Bash"] },
    final: { "01a2291a@5101": ["idle", "FAKE_REPLY: hello from the fake provider"] },
  },
  "codex-permission-then-esc": { after: { 2: ["waiting", ASKED, "Bash"] }, final: { "01a2291a@5101": ["idle", "turn interrupted"] } },
  "pi-dialog-while-a-tool-starts": {
    after: {
      4: ["waiting", "waiting for input: Dangerous command: rm -rf build. Allow?"],
      5: ["waiting", "waiting for input: Dangerous command: rm -rf build. Allow?"],
      6: ["running", "bash", "bash"],
    },
    final: { "019a-pi-@5201": ["idle", "The tool ran; all done."] },
  },
};

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.cleanup());

const stateOf = (record: { status: string; detail: string; tool: string }, expected: State) =>
  expected[2] === undefined ? [record.status, record.detail] : [record.status, record.detail, record.tool];

async function replay(stream: Stream, check: (index: number) => Promise<void> = async () => undefined): Promise<void> {
  const processes = streamProcesses(stream);
  for (const [index, event] of stream.events.entries()) {
    const outcome = await deliver(stream, event, { env: {}, processes, stateDir: sandbox.stateDir, scanBoundMs: 5000, lockBoundMs: 5000 });
    expect(outcome, `event ${index} (${event.event})`).toMatchObject({ ok: true });
    await check(index);
  }
}

async function finalStates(stream: Stream, gone: ReadonlySet<number> = new Set()) {
  const last = REPLAY_EPOCH + (stream.events.at(-1)?.t ?? 0) + 1000;
  const fleet = await loadFleet(
    { stateDir: sandbox.stateDir, processes: streamProcesses(stream, gone), now: () => last },
    { discover: false },
  );
  return Object.fromEntries(fleet.sessions.map((session) => [`${session.session_id.slice(0, 8)}@${session.pid}`, session]));
}

describe("the replay corpus", () => {
  it("has an expectation for every stream, and every stream says where it came from", () => {
    expect(streamNames()).toEqual(Object.keys(EXPECTED).sort());
    for (const name of streamNames()) expect(["captured", "composed"]).toContain(loadStream(name).header.origin);
  });

  it.each(Object.keys(EXPECTED))("%s: each step, and the end as readers show it", async (name) => {
    const stream = loadStream(name);
    const expected = EXPECTED[name] as Expectation;
    await replay(stream, async (index) => {
      const want = expected.after[index];
      if (!want) return;
      const event = stream.events[index]!;
      const read = readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(recordIdOf(stream, event)) as string));
      expect(read.kind, `record after event ${index}`).toBe("record");
      if (read.kind === "record") expect(stateOf(read.record, want), `after event ${index} (${event.event})`).toEqual([...want]);
    });
    const sessions = await finalStates(stream);
    expect(Object.keys(sessions).sort()).toEqual(Object.keys(expected.final).sort());
    for (const [key, want] of Object.entries(expected.final)) expect(stateOf(sessions[key]!, want), key).toEqual([...want]);
  });

  it("claude-exit-resume-kill: after kill -9 (no SessionEnd) the liveness check shows the session ended, and explain says why", async () => {
    const stream = loadStream("claude-exit-resume-kill");
    await replay(stream);
    const sessions = await finalStates(stream, new Set([4456]));
    expect(sessions["572ce26b@4456"]).toMatchObject({
      status: "ended",
      recorded_status: "idle",
      stale: true,
      stale_reason: "process 4456 is gone",
    });
    const explained = await explainSession(
      { stateDir: sandbox.stateDir, processes: streamProcesses(stream, new Set([4456])), now: () => REPLAY_EPOCH + 10_000 },
      "4456",
    );
    expect(explained.ok && explained.explanation.entries.map((entry) => [entry.source, entry.event, entry.status])).toEqual([
      ["hook", "claude.session-start", "started"],
      ["hook", "claude.prompt-submit", "running"],
      ["hook", "claude.stop", "idle"],
      ["liveness", "liveness-check", "ended"],
    ]);
  });

  it("the issue's parallel-tools case: explain shows what kept the session waiting", async () => {
    const stream = loadStream("claude-parallel-tool-finishes-while-asking");
    const processes = streamProcesses(stream);
    for (const event of stream.events.slice(0, 5))
      await deliver(stream, event, { env: {}, processes, stateDir: sandbox.stateDir, scanBoundMs: 5000, lockBoundMs: 5000 });
    const explained = await explainSession({ stateDir: sandbox.stateDir, processes, now: () => REPLAY_EPOCH + 5000 }, "2a06764f");
    expect(explained.ok).toBe(true);
    if (!explained.ok) return;
    expect(explained.explanation.pending).toEqual([
      { kind: "permission", tool: "Read", detail: "permission: Read", since: new Date(REPLAY_EPOCH + stream.events[3]!.t).toISOString() },
    ]);
    expect(explained.explanation.entries.at(-1)).toMatchObject({
      source: "hook",
      event: "claude.tool-done",
      status: "waiting",
      recorded: true,
      change: "still waiting; permission wait for Read still open",
    });
  });
});
