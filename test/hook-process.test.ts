// The hook as harnesses run it: real processes, a real process tree (fake harness processes with exact names), the
// real file system. Fail-open is checked on every path: exit 0, nothing on stdout or stderr.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, processInstanceId } from "../src/core/identity.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { liveStartTime } from "../src/store/drainer-process.ts";
import { linuxProcessSource } from "../src/core/proc.ts";
import { readRecord, recordPath } from "../src/store/records.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";
import { CLI_BIN, ROOT, runHook, startFakeHarness, type FakeHarness, type ProcessResult } from "./processes.ts";

let sandbox: Sandbox;
const harnesses: FakeHarness[] = [];
beforeEach(() => {
  sandbox = makeSandbox();
  sandbox.env.TONGS_AGENTS_DEBUG = "1";
});
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  sandbox.cleanup();
});

async function harness(name: string, env: NodeJS.ProcessEnv = {}): Promise<FakeHarness> {
  const started = await startFakeHarness(name, sandbox, env);
  harnesses.push(started);
  return started;
}

function expectSilentSuccess(result: ProcessResult): void {
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe("");
}

async function recordOf(harnessId: string, sessionId: string, pid: number) {
  const info = await linuxProcessSource().basics(pid);
  const id = canonicalId(harnessId, sessionId, processInstanceId(pid, info?.startToken as string));
  return readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(id) as string));
}

const sample = (harnessId: string, name: string) =>
  JSON.parse(readFileSync(join(ROOT, "src/harnesses", harnessId, "fixtures", `${name}.json`), "utf8")).stdin;

describe("replaying real payloads through a process tree like the harness's", () => {
  it("Claude Code (hook -> /bin/sh -c -> claude)", async () => {
    const claude = await harness("claude", { TMUX: "/tmp/tmux-1000/default,4769,0", TMUX_PANE: "%0" });
    const steps: [string, string, string][] = [
      ["session-start", "SessionStart", "started"],
      ["prompt-submit", "UserPromptSubmit", "running"],
      ["tool-use", "PreToolUse", "running"],
      ["permission-request", "PermissionRequest", "waiting"],
      ["notification", "Notification-permission_prompt", "waiting"],
      ["tool-done", "PostToolUse", "running"],
      ["stop", "Stop", "idle"],
      ["notification", "Notification-idle_prompt", "idle"],
      ["session-end", "SessionEnd", "ended"],
    ];
    for (const [alias, name, status] of steps) {
      const payload = sample("claude", name);
      expectSilentSuccess(await claude.emit(alias, "claude", payload));
      expect(await recordOf("claude", payload.session_id, claude.pid)).toMatchObject({
        kind: "record",
        record: { status, pid: claude.pid, identity: "process", cwd: "/home/user/project", terminal: { env: { TMUX_PANE: "%0" } } },
      });
    }
  });

  it("Claude Code StopFailure sets error", async () => {
    const claude = await harness("claude");
    const payload = sample("claude", "StopFailure");
    expectSilentSuccess(await claude.emit("stop-failure", "claude", payload));
    expect(await recordOf("claude", payload.session_id, claude.pid)).toMatchObject({
      kind: "record",
      record: { status: "error", detail: "turn failed (API error)" },
    });
  });

  it("Codex (hook as a direct child of codex), including interrupt", async () => {
    const codex = await harness("codex", { TMUX: "/tmp/tmux-1000/default,11073,0", TMUX_PANE: "%0" });
    const steps: [string, string, string][] = [
      ["session-start", "SessionStart", "started"],
      ["prompt-submit", "UserPromptSubmit", "running"],
      ["tool-use", "PreToolUse", "running"],
      ["permission-request", "PermissionRequest", "waiting"],
      ["tool-done", "PostToolUse", "running"],
      ["stop", "Stop", "idle"],
      ["interrupt", "Interrupt", "idle"],
      ["session-end", "SessionEnd", "ended"],
    ];
    for (const [alias, name, status] of steps) {
      const payload = sample("codex", name);
      expectSilentSuccess(await codex.emit(alias, "codex", payload, { shell: false }));
      expect(await recordOf("codex", payload.session_id, codex.pid)).toMatchObject({ kind: "record", record: { status, pid: codex.pid } });
    }
  });

  it("Copilot CLI (hook -> /bin/sh -c -> copilot): camelCase payloads, waiting from the dialog's notification", async () => {
    const copilot = await harness("copilot", { TMUX: "/tmp/tmux-1000/default,2001,0", TMUX_PANE: "%3" });
    const steps: [string, string, string, string][] = [
      ["session-start", "sessionStart", "started", "session started"],
      ["prompt-submit", "userPromptSubmitted", "running", "processing prompt"],
      ["tool-use", "preToolUse", "running", "bash"],
      ["notification", "notification", "waiting", "permission requested"],
      ["tool-done", "postToolUse", "running", "bash finished"],
      ["stop", "agentStop", "idle", ""],
      ["error-occurred", "errorOccurred", "error", "turn failed (model call error)"],
      ["session-end", "sessionEnd", "ended", "session closed"],
    ];
    for (const [alias, name, status, detail] of steps) {
      const payload = sample("copilot", name);
      expectSilentSuccess(await copilot.emit(alias, "copilot", payload, { shell: true }));
      expect(await recordOf("copilot", payload.sessionId, copilot.pid)).toMatchObject({
        kind: "record",
        record: {
          status,
          detail,
          pid: copilot.pid,
          identity: "process",
          cwd: "/home/user/project",
          terminal: { env: { TMUX_PANE: "%3" } },
        },
      });
    }
  });

  it("two Claude Code processes in one directory stay separate sessions", async () => {
    const [one, two] = [await harness("claude"), await harness("claude")];
    await one.emit("session-start", "claude", { session_id: "s-one", cwd: "/same" });
    await two.emit("session-start", "claude", { session_id: "s-two", cwd: "/same" });
    await two.emit("permission-request", "claude", { session_id: "s-two", cwd: "/same", tool_name: "Bash" });
    expect(await recordOf("claude", "s-one", one.pid)).toMatchObject({ kind: "record", record: { status: "started" } });
    expect(await recordOf("claude", "s-two", two.pid)).toMatchObject({ kind: "record", record: { status: "waiting" } });
  });

  it("a process not named exactly like the harness is no evidence (unresolved placeholder)", async () => {
    const impostor = await harness("claudex");
    expectSilentSuccess(await impostor.emit("session-start", "claude", { session_id: "s", cwd: "/w" }));
    const names = readdirSync(sessionsDirOf(sandbox.stateDir)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
    expect(names).toHaveLength(1);
    const read = await readRecord(join(sessionsDirOf(sandbox.stateDir), names[0] as string));
    expect(read).toMatchObject({ kind: "record", record: { identity: "unresolved", pid: null } });
  });
});

describe("concurrent delivery", () => {
  it("dozens of hook processes at once against one record: nothing lost, every read parses", async () => {
    const claude = await harness("claude");
    await claude.emit("session-start", "claude", { session_id: "busy", cwd: "/w" });
    const info = await linuxProcessSource().basics(claude.pid);
    const path = recordPath(
      sessionsDirOf(sandbox.stateDir),
      digestOf(canonicalId("claude", "busy", processInstanceId(claude.pid, info?.startToken as string))) as string,
    );
    let reading = true;
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        expect((await readRecord(path)).kind).toBe("record");
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const count = 32;
    await claude.emit("prompt-submit", "claude", { session_id: "busy", cwd: "/w" });
    const runs = await claude.emitMany(
      "tool-use",
      "claude",
      Array.from({ length: count }, (_, index) => ({ session_id: "busy", cwd: "/w", tool_name: `T${index}` })),
    );
    reading = false;
    await reader;
    for (const run of runs) expectSilentSuccess(run);
    // Every hook either applied its event or left it queued; anything else would be a lost event (shown with its reason).
    const outcomes = readFileSync(join(sandbox.stateDir, "hook.log"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { action?: string });
    expect(outcomes.filter((outcome) => outcome.action !== "written" && outcome.action !== "deferred")).toEqual([]);
    // Under contention a hook may leave its event queued (deferred, not dropped); the next event applies it first.
    expectSilentSuccess(await claude.emit("stop", "claude", { session_id: "busy", cwd: "/w" }));
    const final = await readRecord(path);
    // session-start + prompt-submit + every tool-use + stop: arrival_sequence counts each event exactly once.
    expect(final).toMatchObject({ kind: "record", record: { arrival_sequence: count + 3, status: "idle" } });
    expect(reads).toBeGreaterThan(0);
  });

  it("out-of-order and duplicate emitter sequences: only strictly newer ones apply", async () => {
    const pi = await harness("pi");
    const send = (sequence: number, event: string, status: string) =>
      runHook(
        ["fleet-event", "--agent", "pi"],
        JSON.stringify({
          schema_version: 1,
          event_id: `pi.${event}`,
          session_id: "p",
          instance_id: "inst",
          sequence,
          pid: pi.pid,
          cwd: "/w",
          status,
          detail: "",
          tool: "",
        }),
        sandbox.env,
      );
    const order: [number, string, string][] = [
      [1, "session-start", "started"],
      [3, "agent-settled", "idle"],
      [2, "agent-start", "running"],
      [3, "agent-start", "running"],
      [4, "agent-start", "running"],
    ];
    const expected = ["started", "idle", "idle", "idle", "running"];
    const id = canonicalId("pi", "p", "inst");
    for (const [index, [sequence, event, status]] of order.entries()) {
      expectSilentSuccess(await send(sequence, event, status));
      expect(await readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(id) as string))).toMatchObject({
        kind: "record",
        record: { status: expected[index] },
      });
    }
  });
});

describe("fail-open", () => {
  it("exits 0 silently on garbage arguments and input", async () => {
    for (const [args, input] of [
      [[], ""],
      [["stop"], "{}"],
      [["stop", "--agent", "nope"], "{}"],
      [["stop", "--agent", "claude"], "\u0000\u0001garbage"],
      [["fleet-event", "--agent", "pi"], "x".repeat(200 * 1024)],
    ] as const) {
      expectSilentSuccess(await runHook(args, input, sandbox.env));
    }
  });

  it("gives up within its bound when the record lock stays held, leaving the record as it was", async () => {
    const pi = await harness("pi");
    const payload = (sequence: number) =>
      JSON.stringify({
        schema_version: 1,
        event_id: "pi.agent-start",
        session_id: "held",
        instance_id: "i",
        sequence,
        pid: pi.pid,
        cwd: "/w",
        status: "running",
        detail: "",
        tool: "",
      });
    expectSilentSuccess(await runHook(["fleet-event", "--agent", "pi"], payload(1), sandbox.env));
    const path = recordPath(sessionsDirOf(sandbox.stateDir), digestOf(canonicalId("pi", "held", "i")) as string);
    const before = readFileSync(path, "utf8");
    // A lock held by a live process (this one) that keeps making progress (record-lock.ts).
    const holder = `${path}.lock/holder-${process.pid}-${liveStartTime(process.pid)}-00000000`;
    mkdirSync(holder, { recursive: true });
    const keepFresh = setInterval(() => utimesSync(holder, new Date(), new Date()), 200);
    try {
      const result = await runHook(["fleet-event", "--agent", "pi"], payload(2), sandbox.env);
      expectSilentSuccess(result);
      expect(result.ms).toBeLessThan(5000); // generous: the bound itself is measured in docs/benchmarks.md
    } finally {
      clearInterval(keepFresh);
    }
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(readFileSync(join(sandbox.stateDir, "hook.log"), "utf8")).toContain("the event stays queued for the next lock holder");
    // Once the lock is free, the next event applies the queued one first: deferred, not lost.
    rmSync(`${path}.lock`, { recursive: true });
    expectSilentSuccess(await runHook(["fleet-event", "--agent", "pi"], payload(3), sandbox.env));
    expect(await readRecord(path)).toMatchObject({ kind: "record", record: { sequence: 3, arrival_sequence: 3 } });
  });

  it("with TONGS_AGENTS_DEBUG=1, a symlinked state dir is refused and no log is written through it", async () => {
    const target = join(sandbox.root, "elsewhere");
    mkdirSync(target, { mode: 0o700 });
    const linked = join(sandbox.root, "linked-state");
    symlinkSync(target, linked);
    const env = { ...sandbox.env, TONGS_AGENTS_STATE_DIR: linked };
    expectSilentSuccess(await runHook(["session-start", "--agent", "claude"], JSON.stringify({ session_id: "s", cwd: "/w" }), env));
    expect(readdirSync(target)).toEqual([]);
  });

  it("with TONGS_AGENTS_DEBUG=1, a FIFO planted as hook.log neither blocks the hook nor is written to", async () => {
    mkdirSync(sandbox.stateDir, { mode: 0o700 });
    execFileSync("mkfifo", [join(sandbox.stateDir, "hook.log")]);
    // Spawned by hand: a hook blocked in open() never exits by itself, and is killed after the bound.
    const child = spawn(process.execPath, [join(ROOT, "bin/tongs-agents-hook.cjs"), "session-start", "--agent", "claude"], {
      env: sandbox.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end(JSON.stringify({ session_id: "s", cwd: "/w" }));
    const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on("close", (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    clearTimeout(killer);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });

  it("on a Node older than 22 the hook does nothing and exits 0; the CLI says why", async () => {
    if (!existsSync("/usr/bin/node")) return expect.fail("this machine has no system Node to run the check with");
    const systemMajor = Number(
      spawnSync("/usr/bin/node", ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout.trim(),
    );
    if (systemMajor >= 22) return; // nothing older to test with on this machine
    const hook = spawnSync("/usr/bin/node", [join(ROOT, "bin/tongs-agents-hook.cjs"), "stop", "--agent", "claude"], {
      input: "{}",
      env: sandbox.env,
      encoding: "utf8",
    });
    expect([hook.status, hook.stdout, hook.stderr]).toEqual([0, "", ""]);
    const cli = spawnSync("/usr/bin/node", [join(ROOT, "bin/tongs-agents.js"), "list"], { env: sandbox.env, encoding: "utf8" });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain("needs Node.js 22 or newer");
  });
});

describe("the CLI process", () => {
  it("stops quietly, exit 0, when the reader of its output has gone (a pipe into head)", async () => {
    const child = spawn(process.execPath, [CLI_BIN, "help"], { env: sandbox.env, stdio: ["ignore", "pipe", "pipe"] });
    // Close the read end before the CLI writes: its first write fails with EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  });
});

describe("the hook's import graph", () => {
  it.each(["hook", "hook-drainer"])("%s: stays small and never pulls in the CLI, MCP server, picker or process listing", (bundle) => {
    const meta = JSON.parse(readFileSync(join(ROOT, `.cache/${bundle}.meta.json`), "utf8")) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { bytes: number }>;
    };
    const inputs = Object.keys(meta.inputs);
    for (const forbidden of [
      "src/cli/",
      "src/mcp",
      "src/picker",
      "src/fleet/",
      "@modelcontextprotocol",
      "node_modules/execa",
      "node_modules/ps-list",
    ]) {
      expect(inputs.filter((input) => input.includes(forbidden))).toEqual([]);
    }
    const bytes = Object.values(meta.outputs).reduce((sum, output) => sum + output.bytes, 0);
    expect(bytes).toBeLessThan(120 * 1024);
  });
});
