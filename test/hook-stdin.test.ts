// The built hook against every kind of stdin a harness (or a person) can give it, as real processes: an anonymous
// pipe and a FIFO held open, a socketpair (what Node's child_process and Claude Code give), a never-ending stream,
// a closed stdin, a terminal (node-pty), a regular file. Each must exit 0, print nothing, and be gone within 3 s
// whatever the writer does. And the payload sizes of issue 9: no transition lost for size.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, constants, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import pty from "@lydell/node-pty";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, placeholderCanonicalId, processInstanceId } from "../src/core/identity.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { linuxProcessSource } from "../src/core/proc.ts";
import { readRecord, recordPath } from "../src/store/records.ts";
import { HOOK_BIN, ROOT, startFakeHarness, type FakeHarness, type ProcessResult } from "./processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

/** The documented bound (docs/contract.md, "Fail-open"), with Node's start-up on a busy machine. */
const WALL_BOUND_MS = 3000;

let sandbox: Sandbox;
const children: ChildProcess[] = [];
const held: number[] = [];
const harnesses: FakeHarness[] = [];
beforeEach(() => {
  sandbox = makeSandbox();
  sandbox.env.TONGS_AGENTS_DEBUG = "1";
  // The debug log goes into the state dir, which a hook that rejects its input never creates.
  mkdirSync(sandbox.stateDir, { mode: 0o700 });
});
afterEach(async () => {
  // Whatever a test left running (a writer holding stdin open), by process group: each was started detached.
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), "SIGKILL");
  for (const fd of held.splice(0)) closeSync(fd);
  await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  sandbox.cleanup();
});

function expectSilentExitInBound(result: ProcessResult): void {
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
  expect(result.ms).toBeLessThan(WALL_BOUND_MS);
}

/** Run a process (own process group, so afterEach can stop anything it left) and collect its result. */
function run(
  file: string,
  args: readonly string[],
  options: { stdio0?: "pipe" | number; env?: NodeJS.ProcessEnv; feed?: (child: ChildProcess) => void } = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, args, { env: options.env ?? sandbox.env, stdio: [options.stdio0 ?? "pipe", "pipe", "pipe"], detached: true });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => (stdout += chunk));
    child.stderr?.on("data", (chunk) => (stderr += chunk));
    child.stdin?.on("error", () => undefined);
    options.feed?.(child);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** A bash script whose `hook` function runs the built hook with the test's arguments. */
const bash = (script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
  run("bash", ["-c", `hook() { "$NODE" "$HOOK" "$@"; }\n${script}`, "bash", ...args], {
    env: { ...sandbox.env, NODE: process.execPath, HOOK: HOOK_BIN, ...env },
  });

/** The debug log's line for each hook run: how the input ended and what became of the event. */
function hookLog(): {
  input?: { bytes: number; end: string; source: string };
  ok?: boolean;
  action?: string;
  stage?: string;
  detail?: string;
  outcome?: string;
}[] {
  return readFileSync(join(sandbox.stateDir, "hook.log"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

const placeholder = (sessionId: string) =>
  readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(placeholderCanonicalId("claude", sessionId)) as string));
const prompt = (sessionId: string) =>
  JSON.stringify({ session_id: sessionId, cwd: "/w", hook_event_name: "UserPromptSubmit", prompt: "hi" });
const PROMPT_ARGS = ["prompt-submit", "--agent", "claude"];

describe("stdin held open, or never ending: the hook still exits 0 within its bound", () => {
  it("an anonymous pipe held open after a whole payload: applied at once", async () => {
    const script =
      'exec 3< <(printf "%s" "$PAYLOAD"; exec sleep 30); holder=$!; [ -p /dev/fd/3 ] || exit 97; hook "$@" <&3; code=$?; kill $holder; exit $code';
    expectSilentExitInBound(await bash(script, PROMPT_ARGS, { PAYLOAD: prompt("held-pipe") }));
    expect(hookLog()).toMatchObject([{ input: { end: "enough", source: "pipe" }, ok: true, action: "written" }]);
    expect(await placeholder("held-pipe")).toMatchObject({ kind: "record", record: { status: "running" } });
  });

  it("an anonymous pipe held open mid-payload: what was read by the input bound is applied", async () => {
    const script = 'exec 3< <(printf "%s" "$PAYLOAD"; exec sleep 30); holder=$!; hook "$@" <&3; code=$?; kill $holder; exit $code';
    expectSilentExitInBound(await bash(script, PROMPT_ARGS, { PAYLOAD: prompt("half-pipe").slice(0, -10) }));
    expect(hookLog()).toMatchObject([{ input: { end: "deadline", source: "pipe" }, ok: true, action: "written" }]);
    expect(await placeholder("half-pipe")).toMatchObject({ kind: "record", record: { status: "running" } });
  });

  it("a never-ending stream on a pipe: reads up to the cap, then applies what it knows", async () => {
    const script =
      'exec 3< <(printf "%s" "$PAYLOAD"; exec tr "\\0" x < /dev/zero); holder=$!; hook "$@" <&3; code=$?; kill $holder 2>/dev/null; exit $code';
    const payload = '{"session_id":"endless","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"';
    expectSilentExitInBound(await bash(script, PROMPT_ARGS, { PAYLOAD: payload }));
    expect(hookLog()).toMatchObject([{ input: { bytes: 16 * 1024 * 1024, end: "cap", source: "pipe" }, ok: true, action: "written" }]);
  });

  it("a FIFO held open by its writer", async () => {
    const path = join(sandbox.root, "fifo");
    expect(spawnSync("mkfifo", [path]).status).toBe(0);
    const fd = openSync(path, constants.O_RDWR);
    held.push(fd);
    writeSync(fd, prompt("fifo"));
    expectSilentExitInBound(await run(process.execPath, [HOOK_BIN, ...PROMPT_ARGS], { stdio0: fd }));
    expect(hookLog()).toMatchObject([{ input: { end: "enough", source: "pipe" }, ok: true }]);
  });

  it("an empty FIFO held open: gives up reading at the input bound", async () => {
    const path = join(sandbox.root, "fifo");
    expect(spawnSync("mkfifo", [path]).status).toBe(0);
    const fd = openSync(path, constants.O_RDWR);
    held.push(fd);
    expectSilentExitInBound(await run(process.execPath, [HOOK_BIN, ...PROMPT_ARGS], { stdio0: fd }));
    expect(hookLog()).toMatchObject([{ input: { bytes: 0, end: "deadline", source: "pipe" }, ok: false, stage: "input" }]);
  });

  it("a socketpair held open after a whole payload (never ended), and one held open with nothing written", async () => {
    expectSilentExitInBound(
      await run(process.execPath, [HOOK_BIN, ...PROMPT_ARGS], { feed: (child) => child.stdin?.write(prompt("socket")) }),
    );
    expectSilentExitInBound(await run(process.execPath, [HOOK_BIN, ...PROMPT_ARGS]));
    expect(hookLog()).toMatchObject([
      { input: { end: "enough", source: "socket" }, ok: true, action: "written" },
      { input: { bytes: 0, end: "deadline", source: "socket" }, ok: false, stage: "input" },
    ]);
  });

  it("a never-ending stream on a socketpair", async () => {
    const chunk = Buffer.alloc(64 * 1024, "x");
    const feed = (child: ChildProcess) => {
      child.stdin?.write('{"session_id":"endless-socket","cwd":"/w","prompt":"');
      const pump = () => {
        if (child.exitCode === null && child.stdin?.writable) child.stdin.write(chunk, () => setImmediate(pump));
      };
      pump();
    };
    expectSilentExitInBound(await run(process.execPath, [HOOK_BIN, ...PROMPT_ARGS], { feed }));
    expect(hookLog()).toMatchObject([{ input: { bytes: 16 * 1024 * 1024, end: "cap", source: "socket" }, ok: true, action: "written" }]);
  });

  it("a closed stdin", async () => {
    expectSilentExitInBound(await bash('exec "$NODE" "$HOOK" "$@" <&-', PROMPT_ARGS));
    expect(hookLog()).toMatchObject([{ input: { bytes: 0, source: "none" }, ok: false, stage: "input" }]);
  });

  it("a terminal (someone running the hook by hand): reads nothing, prints nothing", async () => {
    const started = performance.now();
    const hook = pty.spawn(process.execPath, [HOOK_BIN, ...PROMPT_ARGS], {
      cols: 80,
      rows: 24,
      cwd: ROOT,
      env: sandbox.env as Record<string, string>,
    });
    let output = "";
    hook.onData((data) => (output += data));
    const code = await new Promise<number>((resolve) => hook.onExit(({ exitCode }) => resolve(exitCode)));
    expectSilentExitInBound({ code, stdout: output, stderr: "", ms: performance.now() - started });
    expect(hookLog()).toMatchObject([{ input: { bytes: 0, source: "none" }, ok: false, stage: "input" }]);
  });

  it("a regular file", async () => {
    const path = join(sandbox.root, "payload.json");
    writeFileSync(path, prompt("file"));
    const fd = openSync(path, constants.O_RDONLY);
    held.push(fd);
    expectSilentExitInBound(await run(process.execPath, [HOOK_BIN, ...PROMPT_ARGS], { stdio0: fd }));
    expect(hookLog()).toMatchObject([{ input: { end: "enough", source: "file" }, ok: true, action: "written" }]);
  });
});

describe("no transition lost for size (issue 9)", () => {
  const sample = (name: string) => JSON.parse(readFileSync(join(ROOT, "src/harnesses/claude/fixtures", `${name}.json`), "utf8")).stdin;
  async function claude(): Promise<FakeHarness> {
    const started = await startFakeHarness("claude", sandbox);
    harnesses.push(started);
    return started;
  }
  async function recordOf(harness: FakeHarness, sessionId: string) {
    const info = await linuxProcessSource().basics(harness.pid);
    const id = canonicalId("claude", sessionId, processInstanceId(harness.pid, info?.startToken as string));
    return readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(id) as string));
  }

  it("permission request, then a PostToolUse with an 80 KB tool_response, then a Stop with a 70 KB reply: the session ends idle", async () => {
    const harness = await claude();
    const permission = sample("PermissionRequest");
    const post = sample("PostToolUse");
    post.tool_response.stdout = "line of output\n".repeat(5500); // ~80 KB
    const stop = sample("Stop");
    stop.last_assistant_message = `Finished the refactor. ${"Every test passes. ".repeat(3700)}`; // ~70 KB
    const steps: [string, unknown, Record<string, unknown>][] = [
      ["session-start", sample("SessionStart"), { status: "started" }],
      ["permission-request", permission, { status: "waiting", detail: "permission: Bash" }],
      ["tool-done", post, { status: "running", detail: "Bash finished" }],
      ["stop", stop, { status: "idle", detail: expect.stringMatching(/^Finished the refactor\. Every test passes\. .*…$/) }],
    ];
    for (const [alias, payload, record] of steps) {
      const result = await harness.emit(alias, "claude", payload);
      expectSilentExitInBound(result);
      expect(await recordOf(harness, permission.session_id)).toMatchObject({ kind: "record", record });
    }
    expect(JSON.stringify(post).length).toBeGreaterThan(80_000);
    expect(JSON.stringify(stop).length).toBeGreaterThan(70_000);
    expect(hookLog().map((line) => line.action)).toEqual(["written", "written", "written", "written"]);
  });

  it("a 16 MB payload (a PostToolUse) is applied within the bound, and so is one past the 16 MiB cap (a Stop)", async () => {
    const harness = await claude();
    const post = sample("PostToolUse");
    post.tool_response.stdout = "x".repeat(16_000_000);
    const huge = await harness.emit("tool-done", "claude", post);
    expectSilentExitInBound(huge);
    expect(await recordOf(harness, post.session_id)).toMatchObject({
      kind: "record",
      record: { status: "running", detail: "Bash finished" },
    });
    const stop = sample("Stop");
    stop.last_assistant_message = `All done. ${"y".repeat(20_000_000)}`;
    expectSilentExitInBound(await harness.emit("stop", "claude", stop));
    expect(await recordOf(harness, post.session_id)).toMatchObject({
      kind: "record",
      record: { status: "idle", detail: expect.stringMatching(/^All done\. y+…$/) },
    });
    expect(hookLog()).toMatchObject([
      { input: { end: "enough", source: "socket" }, action: "written" },
      { input: { bytes: 16 * 1024 * 1024, end: "cap", source: "socket" }, action: "written" },
    ]);
  });

  it("16 MB through an anonymous pipe (a Codex-style direct child)", async () => {
    const path = join(sandbox.root, "payload.json");
    writeFileSync(
      path,
      JSON.stringify({ session_id: "big-pipe", cwd: "/w", hook_event_name: "UserPromptSubmit", prompt: "p".repeat(16_000_000) }),
    );
    expectSilentExitInBound(await bash('cat "$FILE" | hook "$@"', PROMPT_ARGS, { FILE: path }));
    expect(hookLog()).toMatchObject([{ input: { end: "enough", source: "pipe" }, ok: true, action: "written" }]);
    expect(await placeholder("big-pipe")).toMatchObject({ kind: "record", record: { status: "running" } });
  });
});
