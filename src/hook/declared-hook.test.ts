// The hook applies a declared agent's events (config.json "agents") through the same identity, bounds and store as
// a built-in harness's.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { canonicalId, digestOf, processInstanceId } from "../core/identity.ts";
import type { ProcessInfo } from "../core/proc.ts";
import { parseDeclaredAgents } from "../harnesses/declared.ts";
import { sessionsDirOf } from "../store/paths.ts";
import { readRecord, recordPath } from "../store/records.ts";
import { runHook, type HookContext } from "./pipeline.ts";

/** hook(300) -> sh(200) -> mytool(100) -> bash(50). */
const world = new Map<number, ProcessInfo>([
  [200, fakeProcess(200, 100, "sh", ["/bin/sh", "-c", "tongs-agents-hook"])],
  [100, fakeProcess(100, 50, "mytool", ["/opt/mytool/bin/mytool", "--fast"])],
  [50, fakeProcess(50, 1, "bash")],
]);

const declared = parseDeclaredAgents([
  {
    id: "mytool",
    process_names: ["mytool"],
    events: { begin: "started", work: "running", ask: "waiting", done: "idle", fail: "error", bye: "ended" },
  },
  { id: "Bad", process_names: ["bad"] },
  { id: "broken", process_names: ["broken"], events: { begin: "busy" } },
]);

let sandbox: Sandbox;
let context: HookContext;
beforeEach(() => {
  sandbox = makeSandbox();
  context = {
    env: { TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%7", HOME: sandbox.home },
    ppid: 200,
    processes: fakeProcessSource(world.values()),
    stateDir: sandbox.stateDir,
    now: Date.now,
    scanBoundMs: 5000,
    lockBoundMs: 5000,
    declared: () => declared,
    cwd: "/work/proj",
  };
});
afterEach(() => sandbox.cleanup());

const empty = Buffer.alloc(0);
const id = canonicalId("mytool", "process-100", processInstanceId(100, "linux:boot:10000"));
const record = async (canonical = id) => {
  const read = readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(canonical) as string));
  return read.kind === "record" ? read.record : read;
};

describe("declared agents' events", () => {
  it("without a payload: the agent process in the ancestry is the session, the hook's directory its cwd", async () => {
    expect(await runHook(["begin", "--agent", "mytool"], empty, context)).toMatchObject({ ok: true, action: "written", canonicalId: id });
    expect(await record()).toMatchObject({
      harness: "mytool",
      session_id: "process-100",
      identity: "process",
      pid: 100,
      status: "started",
      cwd: "/work/proj",
      last_event: "mytool.begin",
      terminal: { env: { TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%7" } },
    });
  });

  it("each mapped event sets its state, in order", async () => {
    for (const [event, status] of [
      ["begin", "started"],
      ["work", "running"],
      ["ask", "waiting"],
      ["work", "running"],
      ["done", "idle"],
      ["fail", "error"],
      ["bye", "ended"],
    ] as const) {
      expect(await runHook([event, "--agent", "mytool"], empty, context)).toMatchObject({ ok: true });
      expect(await record()).toMatchObject({ status, last_event: `mytool.${event}`, detail: event });
    }
  });

  it("a JSON payload may name the session, its directory and a tool (bounded like native payloads)", async () => {
    const payload = Buffer.from(JSON.stringify({ session_id: "s-1", cwd: "/elsewhere", tool_name: "grep", other: "x".repeat(100_000) }));
    const named = canonicalId("mytool", "s-1", processInstanceId(100, "linux:boot:10000"));
    expect(await runHook(["work", "--agent", "mytool"], payload, context)).toMatchObject({ ok: true, canonicalId: named });
    expect(await record(named)).toMatchObject({ session_id: "s-1", cwd: "/elsewhere", tool: "grep", detail: "work: grep" });
  });

  it.each([
    [["nope", "--agent", "mytool"], empty, { stage: "event", detail: 'mytool maps no event "nope" to a state' }],
    [["begin", "--agent", "unknown"], empty, { stage: "harness", detail: 'unknown harness "unknown"' }],
    [
      ["begin", "--agent", "broken"],
      empty,
      { stage: "harness", detail: expect.stringContaining('declared agent "broken" was rejected: events.begin') },
    ],
    [["begin", "--agent", "mytool"], Buffer.from("{"), { stage: "input" }],
    [["begin", "--agent", "mytool"], Buffer.from(JSON.stringify({ session_id: 7 })), { stage: "schema" }],
  ])("%j is rejected before the store is touched", async (argv, input, outcome) => {
    expect(await runHook(argv, input, context)).toMatchObject({ ok: false, ...outcome });
  });

  it("no agent process in the ancestry and no session id: rejected; with a session id: an unresolved placeholder", async () => {
    const orphan = { ...context, ppid: 50 };
    expect(await runHook(["begin", "--agent", "mytool"], empty, orphan)).toMatchObject({
      ok: false,
      stage: "harness",
      detail: "no session_id in the payload and no mytool process among the hook's ancestors",
    });
    const outcome = await runHook(["begin", "--agent", "mytool"], Buffer.from('{"session_id":"s-9"}'), orphan);
    expect(outcome).toMatchObject({ ok: true, action: "written" });
    expect(await record((outcome as { canonicalId: string }).canonicalId)).toMatchObject({ identity: "unresolved", status: "started" });
  });

  it("a built-in id never reads the declared agents", async () => {
    const never = { ...context, declared: () => expect.unreachable("declared agents read for a built-in id") };
    expect(await runHook(["session-start", "--agent", "claude"], Buffer.from('{"session_id":"c","cwd":"/w"}'), never)).toMatchObject({
      ok: true,
    });
  });
});
