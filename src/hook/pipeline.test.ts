import fc from "fast-check";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { runHook, type HookContext } from "./pipeline.ts";
import { canonicalId, digestOf, placeholderCanonicalId, processInstanceId } from "../core/identity.ts";
import { sessionsDirOf } from "../store/paths.ts";
import type { ProcessInfo, ProcessSource } from "../core/proc.ts";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { listRecords, readRecord, recordPath } from "../store/records.ts";
import { spoolDirOf } from "../store/spool.ts";
import { LOCK_STAGING_DIR, withRecordLock } from "../store/record-lock.ts";

const proc = fakeProcess;

/** hook(300) -> sh(200) -> claude(100) -> bash(50); codex(110) is the direct parent in codex chains. */
const world = new Map<number, ProcessInfo>([
  [200, proc(200, 100, "sh", ["/bin/sh", "-c", "tongs-agents-hook"])],
  [100, proc(100, 50, "claude")],
  [50, proc(50, 1, "bash")],
  [110, proc(110, 50, "codex", ["/opt/codex", "--no-daemon"])],
  [120, proc(120, 1, "codex", ["/opt/codex", "app-server", "--managed-daemon"])],
  [4242, proc(4242, 50, "pi")],
]);
const processes = fakeProcessSource(world.values());

let sandbox: Sandbox;
let context: HookContext;
beforeEach(() => {
  sandbox = makeSandbox();
  context = {
    env: { TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%3", SECRET_TOKEN: "do-not-store", HOME: sandbox.home },
    ppid: 200,
    processes,
    stateDir: sandbox.stateDir,
    now: Date.now,
    scanBoundMs: 5000,
    lockBoundMs: 5000,
  };
});
afterEach(() => sandbox.cleanup());

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const native = (extra: Record<string, unknown> = {}) => json({ session_id: "sess-1", cwd: "/work/app", hook_event_name: "X", ...extra });
const claudeId = canonicalId("claude", "sess-1", processInstanceId(100, "linux:boot:10000"));
const sessions = () => sessionsDirOf(sandbox.stateDir);
const read = async (id: string) => readRecord(recordPath(sessions(), digestOf(id) as string));

function fleet(overrides: Record<string, unknown> = {}) {
  return json({
    schema_version: 1,
    event_id: "pi.session-start",
    session_id: "pi-s",
    instance_id: "tok-1",
    sequence: 1,
    pid: 4242,
    cwd: "/work/pi",
    status: "started",
    detail: "session started",
    tool: "",
    ...overrides,
  });
}

describe("native events", () => {
  it("walks the ancestry to the claude process and records its identity and terminal", async () => {
    expect(await runHook(["session-start", "--agent", "claude"], native(), context)).toMatchObject({
      ok: true,
      action: "written",
      canonicalId: claudeId,
    });
    const record = await read(claudeId);
    expect(record).toMatchObject({
      kind: "record",
      record: {
        harness: "claude",
        session_id: "sess-1",
        identity: "process",
        pid: 100,
        process_start: "linux:boot:10000",
        status: "started",
        cwd: "/work/app",
        terminal: { env: { TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%3" }, tty: "/dev/pts/4" },
      },
    });
    expect(JSON.stringify(record)).not.toContain("do-not-store");
  });

  it("follows a session through its lifecycle", async () => {
    const steps: [string, Record<string, unknown>, string][] = [
      ["session-start", {}, "started"],
      ["prompt-submit", { prompt: "hi" }, "running"],
      ["tool-use", { tool_name: "Bash" }, "running"],
      ["permission-request", { tool_name: "Bash" }, "waiting"],
      ["tool-done", { tool_name: "Bash" }, "running"],
      ["stop", { last_assistant_message: "done" }, "idle"],
      ["stop-failure", {}, "error"],
      ["session-end", {}, "ended"],
    ];
    for (const [alias, extra, status] of steps) {
      await runHook([alias, "--agent", "claude"], native(extra), context);
      expect(await read(claudeId)).toMatchObject({ kind: "record", record: { status } });
    }
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { arrival_sequence: steps.length } });
  });

  it("keeps the transcript path the harness sends; a path that does not qualify is dropped, the event kept", async () => {
    const path = "/home/user/.claude/projects/-work-app/sess-1.jsonl";
    await runHook(["session-start", "--agent", "claude"], native({ transcript_path: path }), context);
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { transcript_path: path } });
    for (const bad of ["relative.jsonl", "/etc/passwd", "/a/../b.jsonl", `/${"x".repeat(2000)}.jsonl`, 7, "/a\u0000.jsonl"]) {
      expect(await runHook(["tool-use", "--agent", "claude"], native({ transcript_path: bad, tool_name: "Bash" }), context)).toMatchObject({
        ok: true,
        action: "written",
      });
      expect(await read(claudeId)).toMatchObject({ kind: "record", record: { transcript_path: path, tool: "Bash" } });
    }
    const twice = Buffer.from(
      `{"session_id":"sess-1","cwd":"/work/app","transcript_path":"/a/1.jsonl","transcript_path":"/a/2.jsonl","tool_name":"Read"}`,
    );
    expect(await runHook(["tool-use", "--agent", "claude"], twice, context)).toMatchObject({ ok: true, action: "written" });
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { transcript_path: path, tool: "Read" } });
  });

  it("never trusts a producer-supplied pid or sequence on native aliases", async () => {
    await runHook(["session-start", "--agent", "claude"], native({ pid: 1, sequence: 99, CLAUDE_PID: 7 }), {
      ...context,
      env: { ...context.env, CLAUDE_PID: "7" },
    });
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { pid: 100, sequence: null } });
  });

  it("keeps two harnesses with the same native session id apart", async () => {
    await runHook(["session-start", "--agent", "claude"], native(), context);
    await runHook(["session-start", "--agent", "codex"], native(), { ...context, ppid: 110 });
    const { records } = await listRecords(sessions());
    expect(records.map(({ record }) => `${record.harness}:${record.pid}`).sort()).toEqual(["claude:100", "codex:110"]);
  });

  it("records no terminal for Codex's shared daemon, and starting a session there ends no other", async () => {
    await runHook(["session-start", "--agent", "codex"], native({ session_id: "a" }), { ...context, ppid: 120 });
    await runHook(["session-start", "--agent", "codex"], native({ session_id: "b" }), { ...context, ppid: 120 });
    const { records } = await listRecords(sessions());
    expect(records).toHaveLength(2);
    for (const { record } of records) {
      expect(record.status).toBe("started");
      expect(record.terminal.env).toEqual({});
      expect(record.terminal.unprovable).toContain("shared daemon");
    }
  });

  it("ends the previous session when the same process starts another (/clear, /new)", async () => {
    await runHook(["prompt-submit", "--agent", "claude"], native({ session_id: "first" }), context);
    await runHook(["session-start", "--agent", "claude"], native({ session_id: "second" }), context);
    const first = canonicalId("claude", "first", processInstanceId(100, "linux:boot:10000"));
    expect(await read(first)).toMatchObject({
      kind: "record",
      record: { status: "ended", detail: "replaced by a new session in the same process" },
    });
    // A late event of the replaced session does not revive it.
    await runHook(["stop", "--agent", "claude"], native({ session_id: "first" }), context);
    expect(await read(first)).toMatchObject({ kind: "record", record: { status: "ended" } });
  });

  it("records the spawn order of the process the harness started for a session start, and tool call ids", async () => {
    // Claude Code: the shell it spawned (200); Codex: the hook itself, its direct child.
    await runHook(["session-start", "--agent", "claude"], native(), context);
    expect(await read(claudeId)).toMatchObject({ record: { start_order: { spawn_start: 20000, spawn_pid: 200 } } });
    const hookProcesses = fakeProcessSource([...world.values(), proc(310, 110, "node")]);
    await runHook(["session-start", "--agent", "codex"], native({ session_id: "c" }), {
      ...context,
      ppid: 110,
      pid: 310,
      processes: hookProcesses,
    });
    const codexId = canonicalId("codex", "c", processInstanceId(110, "linux:boot:11000"));
    expect(await read(codexId)).toMatchObject({ record: { start_order: { spawn_start: 31000, spawn_pid: 310 } } });
    await runHook(["tool-use", "--agent", "claude"], native({ tool_name: "Bash", tool_use_id: "toolu_9" }), context);
    expect(await read(claudeId)).toMatchObject({ record: { running_tools: [{ id: "toolu_9", tool: "Bash" }] } });
  });

  it("a later session start that finished first stays the live one (spawn order decides, not finishing order)", async () => {
    const later = fakeProcessSource([...world.values(), proc(201, 100, "sh", ["/bin/sh"], { startToken: "linux:boot:20001" })]);
    await runHook(["session-start", "--agent", "claude"], native({ session_id: "later" }), { ...context, ppid: 201, processes: later });
    await runHook(["session-start", "--agent", "claude"], native({ session_id: "earlier" }), { ...context, processes: later });
    const id = (session: string) => canonicalId("claude", session, processInstanceId(100, "linux:boot:10000"));
    expect(await read(id("later"))).toMatchObject({ record: { status: "started" } });
    expect(await read(id("earlier"))).toMatchObject({
      record: { status: "ended", detail: "replaced by a new session in the same process" },
    });
  });

  it("waits out a briefly held lock in real time whatever the injected clock says (the clock dates records only)", async () => {
    await runHook(["session-start", "--agent", "claude"], native(), context);
    const digest = digestOf(claudeId) as string;
    let release: () => void = () => undefined;
    const holder = withRecordLock(sessions(), digest, 1000, () => new Promise<void>((resolve) => (release = resolve)));
    setTimeout(() => release(), 150);
    const inThePast = { ...context, now: () => Date.parse("2001-01-01T00:00:00Z") };
    await runHook(["prompt-submit", "--agent", "claude"], native({ prompt: "hi" }), inThePast);
    await holder;
    expect(readdirSync(sessions()).filter((name) => name.endsWith(".spool"))).toEqual([]);
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { status: "running", updated_at: "2001-01-01T00:00:00.000Z" } });
  });

  it("ignores notifications that are not state changes without touching the record", async () => {
    await runHook(["session-start", "--agent", "claude"], native(), context);
    const before = readFileSync(recordPath(sessions(), digestOf(claudeId) as string), "utf8");
    expect(await runHook(["notification", "--agent", "claude"], native({ notification_type: "auth_success" }), context)).toMatchObject({
      ok: true,
      action: "ignored",
    });
    expect(readFileSync(recordPath(sessions(), digestOf(claudeId) as string), "utf8")).toBe(before);
  });
});

describe("launch identity", () => {
  const launchEnv = (launchId: string, profile: string) => ({
    ...context,
    env: { ...context.env, TONGS_AGENTS_LAUNCH_ID: launchId, TONGS_AGENTS_PROFILE: profile },
  });
  const good = "0123456789abcdef0123456789abcdef";

  it("is captured on session start, each value validated on its own", async () => {
    await runHook(["session-start", "--agent", "claude"], native(), launchEnv(good, "BAD PROFILE"));
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { launch: { launch_id: good } } });
    const record = await read(claudeId);
    expect(record.kind === "record" && record.record.launch?.profile_id).toBeUndefined();
  });

  it("a bad value never rejects the event", async () => {
    expect(await runHook(["session-start", "--agent", "claude"], native(), launchEnv("XYZ", "../../etc"))).toMatchObject({
      ok: true,
      action: "written",
    });
    const record = await read(claudeId);
    expect(record.kind === "record" && record.record.launch).toBeUndefined();
  });

  it("later events cannot relabel a session, and session-end never reads it", async () => {
    await runHook(["session-start", "--agent", "claude"], native(), launchEnv(good, "work"));
    await runHook(["prompt-submit", "--agent", "claude"], native(), launchEnv("f".repeat(32), "other"));
    await runHook(["session-end", "--agent", "claude"], native(), launchEnv("e".repeat(32), "third"));
    expect(await read(claudeId)).toMatchObject({
      kind: "record",
      record: { status: "ended", launch: { launch_id: good, profile_id: "work" } },
    });
  });

  it("is captured when a later event creates the record (hooks installed mid-session)", async () => {
    await runHook(["tool-use", "--agent", "claude"], native({ tool_name: "Read" }), launchEnv(good, "late"));
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { status: "running", launch: { profile_id: "late" } } });
  });
});

describe("unresolved identity", () => {
  const orphan = () => ({ ...context, ppid: 50 }); // bash -> init: no harness process in the ancestry

  it("creates an explicit placeholder only on session-start or prompt-submit", async () => {
    for (const alias of ["tool-use", "permission-request", "stop", "session-end"]) {
      expect(await runHook([alias, "--agent", "claude"], native(), orphan())).toMatchObject({ ok: true, action: "skipped" });
    }
    expect(readdirSync(sessions()).filter((name) => name.endsWith(".json"))).toEqual([]);
    await runHook(["prompt-submit", "--agent", "claude"], native(), orphan());
    expect(await read(placeholderCanonicalId("claude", "sess-1"))).toMatchObject({
      kind: "record",
      record: { identity: "unresolved", pid: null, instance_id: "unresolved" },
    });
    await runHook(["stop", "--agent", "claude"], native(), orphan());
    expect(await read(placeholderCanonicalId("claude", "sess-1"))).toMatchObject({ kind: "record", record: { status: "idle" } });
  });

  it("migrates to the identified record and never revives the placeholder", async () => {
    await runHook(["session-start", "--agent", "claude"], native(), orphan());
    await runHook(["prompt-submit", "--agent", "claude"], native(), context);
    expect(await read(claudeId)).toMatchObject({ kind: "record", record: { status: "running", pid: 100 } });
    expect(await read(placeholderCanonicalId("claude", "sess-1"))).toMatchObject({
      kind: "tombstone",
      tombstone: { migrated_to: claudeId },
    });
    expect(await runHook(["session-start", "--agent", "claude"], native(), orphan())).toMatchObject({ ok: true, action: "skipped" });
    expect(await read(placeholderCanonicalId("claude", "sess-1"))).toMatchObject({ kind: "tombstone" });
    expect((await listRecords(sessions())).records).toHaveLength(1);
  });

  it("gives up the process scan at its deadline and treats identity as unresolved", async () => {
    const hung: ProcessSource = { basics: () => new Promise(() => undefined), argv: () => new Promise(() => undefined) };
    const started = Date.now();
    const outcome = await runHook(["session-start", "--agent", "claude"], native(), { ...context, processes: hung, scanBoundMs: 100 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(outcome).toMatchObject({ ok: true, action: "written", canonicalId: placeholderCanonicalId("claude", "sess-1") });
  });
});

describe("normalized fleet events", () => {
  const piId = canonicalId("pi", "pi-s", "tok-1");

  it("uses the emitter's PID without checking its name and stores its start token", async () => {
    await runHook(["fleet-event", "--agent", "pi"], fleet(), context);
    expect(await read(piId)).toMatchObject({
      kind: "record",
      record: { identity: "emitter", pid: 4242, process_start: "linux:boot:424200", sequence: 1 },
    });
  });

  it("rejects an equal or older sequence and keeps the record", async () => {
    await runHook(["fleet-event", "--agent", "pi"], fleet({ sequence: 5 }), context);
    for (const sequence of [5, 4, 0]) {
      const outcome = await runHook(
        ["fleet-event", "--agent", "pi"],
        fleet({ sequence, event_id: "pi.agent-start", status: "running" }),
        context,
      );
      expect(outcome).toMatchObject({ ok: true, action: "skipped" });
    }
    expect(await read(piId)).toMatchObject({ kind: "record", record: { status: "started", sequence: 5 } });
  });

  it("a symlink planted as the record's spool dir is never followed: its target's files stay", async () => {
    const target = join(sandbox.root, "victim");
    mkdirSync(target);
    const names = ["00000000000000000001-1-00000000.json", "00000000000000000002-1-00000001.json"];
    for (const name of names) writeFileSync(join(target, name), "{}");
    mkdirSync(sessions(), { recursive: true, mode: 0o700 });
    symlinkSync(target, spoolDirOf(sessions(), digestOf(piId) as string));
    expect(await runHook(["fleet-event", "--agent", "pi"], fleet(), context)).toMatchObject({ ok: true, action: "written" });
    expect(readdirSync(target).sort()).toEqual(names);
  });

  it("records a PID that is already gone without a start token", async () => {
    await runHook(["fleet-event", "--agent", "pi"], fleet({ pid: 999_999 }), context);
    expect(await read(piId)).toMatchObject({ kind: "record", record: { pid: 999_999, process_start: null } });
  });
});

describe("rejections never touch an existing record", () => {
  const piId = canonicalId("pi", "pi-s", "tok-1");
  let before: string;
  beforeEach(async () => {
    await runHook(["fleet-event", "--agent", "pi"], fleet(), context);
    before = readFileSync(recordPath(sessions(), digestOf(piId) as string), "utf8");
  });
  afterEach(() => {
    expect(readFileSync(recordPath(sessions(), digestOf(piId) as string), "utf8")).toBe(before);
    expect(
      readdirSync(sessions()).filter((name) => !name.startsWith("instance-") && !name.endsWith(".spool") && name !== LOCK_STAGING_DIR),
    ).toEqual([`${digestOf(piId)}.json`]);
  });

  const big = (bytes: number) => "x".repeat(bytes);
  it.each<[string, string[], Buffer, string]>([
    ["unknown harness", ["fleet-event", "--agent", "crush"], fleet(), "harness"],
    ["event not in the harness's allowlist", ["stop", "--agent", "pi"], fleet(), "event"],
    ["fleet-event for a native harness", ["fleet-event", "--agent", "claude"], fleet(), "event"],
    ["discovered is never an event", ["discovered", "--agent", "claude"], native(), "event"],
    ["missing --agent", ["fleet-event"], fleet(), "usage"],
    ["extra arguments", ["fleet-event", "--agent", "pi", "--evil"], fleet(), "usage"],
    [
      "normalized input over 64 KiB",
      ["fleet-event", "--agent", "pi"],
      Buffer.concat([fleet({ sequence: 9 }), Buffer.alloc(64 * 1024, " ")]),
      "input",
    ],
    ["malformed JSON", ["fleet-event", "--agent", "pi"], Buffer.from('{"schema_version":1,'), "input"],
    ["empty input", ["fleet-event", "--agent", "pi"], Buffer.alloc(0), "input"],
    ["wrong schema version", ["fleet-event", "--agent", "pi"], fleet({ schema_version: 2, sequence: 9 }), "schema"],
    ["unknown key", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, extra: 1 }), "schema"],
    ["unknown status", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, status: "discovered" }), "schema"],
    ["status the event cannot set", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, status: "ended" }), "event"],
    ["foreign namespace", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, event_id: "claude.session-start" }), "event"],
    ["pid zero", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, pid: 0 }), "schema"],
    ["pid as a string", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, pid: "4242" }), "schema"],
    ["fractional sequence", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9.5 }), "schema"],
    ["negative sequence", ["fleet-event", "--agent", "pi"], fleet({ sequence: -1 }), "schema"],
    ["NUL in the session id", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, session_id: "pi-s\u0000" }), "schema"],
    ["lone surrogate", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, detail: "\ud800" }), "schema"],
    ["empty session id", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, session_id: "" }), "schema"],
    ["session id over 512 bytes", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, session_id: "é".repeat(257) }), "schema"],
    ["instance id over 512 bytes", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, instance_id: big(513) }), "schema"],
    ["cwd over 4096 bytes", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, cwd: `/${big(4096)}` }), "schema"],
    ["detail over 512 bytes", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, detail: big(513) }), "schema"],
    ["tool over 256 bytes", ["fleet-event", "--agent", "pi"], fleet({ sequence: 9, tool: big(257) }), "schema"],
    ["array payload", ["fleet-event", "--agent", "pi"], json([1, 2]), "schema"],
    ["native session id of the wrong type", ["session-start", "--agent", "claude"], native({ session_id: 12 }), "schema"],
    ["native tool name with NUL", ["tool-use", "--agent", "claude"], native({ tool_name: "Ba\u0000sh" }), "schema"],
  ])("%s", async (_name, argv, input, stage) => {
    expect(await runHook(argv, input, context)).toMatchObject({ ok: false, stage });
  });
});

describe("hostile ids", () => {
  it("hostile ids never become paths", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom("../../etc/passwd", "/abs/path", "..", ".", "a/b\\c", "CON", "🎉\u202e"),
          fc.string({ minLength: 1, maxLength: 40 }),
        ),
        async (id) => {
          if (id.includes("\0") || !id.isWellFormed()) return;
          await runHook(["fleet-event", "--agent", "pi"], fleet({ session_id: id, instance_id: id, sequence: 1 }), context);
          for (const name of readdirSync(sessions()))
            expect(name).toMatch(/^((instance-)?[0-9a-f]{64}\.json|[0-9a-f]{64}\.spool|\.lock-staging)$/);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("a harness told by its node script (Gemini CLI)", () => {
  // hook(300) -> sh(210) -> node running gemini.js(150) -> bash(50): the script is a real file, resolved as node would.
  let script: string;
  const chain = (geminiArgv: readonly string[] | undefined): ProcessSource => {
    const rows = fakeProcessSource([
      proc(210, 150, "sh", ["/bin/sh", "-c", "tongs-agents-hook"]),
      proc(150, 50, "node", ["node", script]),
      proc(50, 1, "bash"),
    ]);
    // undefined: the CLI has exited; the shim captured its stat line, its arguments can no longer be read.
    return { basics: rows.basics, argv: async (pid) => (pid === 150 ? geminiArgv : rows.argv(pid)) };
  };
  const geminiId = canonicalId("gemini", "sess-1", processInstanceId(150, "linux:boot:15000"));
  beforeEach(() => {
    const dir = join(sandbox.root, "lib", "node_modules", "@google", "gemini-cli", "bundle");
    mkdirSync(dir, { recursive: true });
    script = join(dir, "gemini.js");
    writeFileSync(script, "");
  });
  const run = (alias: string, processes: ProcessSource) =>
    runHook([alias, "--agent", "gemini"], native(), { ...context, ppid: 210, processes });

  it("a session-end after the CLI exited lands on the record an earlier event proved for that exact process", async () => {
    expect(await run("session-start", chain(["node", script]))).toMatchObject({ ok: true, action: "written", canonicalId: geminiId });
    expect(await run("session-end", chain(undefined))).toMatchObject({ ok: true, action: "written", canonicalId: geminiId });
    expect(await read(geminiId)).toMatchObject({ kind: "record", record: { status: "ended", pid: 150 } });
  });

  it("without such a record, a process whose arguments cannot be read is not taken for the CLI", async () => {
    const outcome = await run("session-end", chain(undefined));
    expect(outcome).not.toMatchObject({ canonicalId: geminiId });
    expect(listRecords(sessions()).records).toEqual([]);
  });
});
