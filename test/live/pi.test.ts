// Live: real Pi releases from the npm registry load the bridge (installed with `pi install <pi-bridge dir>`) and
// report through the real hook. Pi talks to the synthetic provider in e2e/provider. Versions: test/live/pi-install.ts.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEvidence } from "../../e2e/evidence.ts";
import { DEFAULT_TEXT, FINAL_TEXT } from "../../e2e/provider/script.mjs";
import { sessionsDirOf } from "../../src/store/paths.ts";
import { listRecords } from "../../src/store/records.ts";
import { ROOT } from "../processes.ts";
import { PI_RELEASES, ensurePi, type InstalledPi, type PiRelease } from "./pi-install.ts";
import { piWorld, readHookLog, runPi, startRpcPi, type HookLogEntry, type PiWorld } from "./pi-run.ts";

const BRIDGE_DIR = join(ROOT, "pi-bridge");
const RECORDING_HOOK = join(ROOT, "test", "fixtures", "recording-hook.mjs");
const CONFIRM_EXTENSION = join(ROOT, "test", "fixtures", "pi-confirm-extension.js");

const tapped = (world: PiWorld) => ({ TONGS_AGENTS_HOOK: RECORDING_HOOK, TONGS_TEST_HOOK_LOG: world.hookLog });
const summary = (entries: HookLogEntry[]) =>
  entries.map(({ payload }) => [payload.event_id, payload.status, payload.tool === "" ? payload.detail : `tool:${String(payload.tool)}`]);

/** Every tapped event went through the real hook, which left the record in exactly the reported state. */
function expectAppliedByRealHook(entries: HookLogEntry[], piPid: number) {
  expect(entries.length).toBeGreaterThan(0);
  for (const { payload, comm, record, hookExit, hookOutput } of entries) {
    expect({ hookExit, hookOutput }).toEqual({ hookExit: 0, hookOutput: "" });
    expect(payload.pid).toBe(piPid);
    expect(comm).toBe("pi"); // read from /proc/<pid>/comm while Pi was waiting for this event's delivery
    expect(record).toMatchObject({
      harness: "pi",
      identity: "emitter",
      pid: piPid,
      status: payload.status,
      sequence: payload.sequence,
      last_event: payload.event_id,
    });
    expect(String(record?.process_start)).toMatch(/^linux:/);
  }
  const sequences = entries.map(({ payload }) => payload.sequence as number);
  expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  expect(new Set(sequences).size).toBe(sequences.length);
}

async function waitForLog(world: PiWorld, test: (entry: HookLogEntry) => boolean, what: string, timeoutMs = 30_000): Promise<HookLogEntry> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = readHookLog(world).find(test);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`no hook event ${what} within ${timeoutMs} ms; log: ${JSON.stringify(summary(readHookLog(world)))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Until the drainer has applied every event the hook shim queued: Pi's bridge hands each event to the shim, which
 * returns at once; the record is written moments later (the drainer removes an entry once its event is applied).
 */
async function queueDrained(world: PiWorld, timeoutMs = 20_000): Promise<void> {
  const spool = join(world.sandbox.stateDir, "incoming");
  const deadline = Date.now() + timeoutMs;
  while (existsSync(spool) && readdirSync(spool).some((name) => name.endsWith(".ev"))) {
    if (Date.now() > deadline) throw new Error(`events still queued after ${timeoutMs} ms: ${readdirSync(spool).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function installedWorld(release: PiRelease, bridgeDir: (world: PiWorld) => string = () => BRIDGE_DIR) {
  const state = { pi: undefined as InstalledPi | undefined, world: undefined as PiWorld | undefined };
  beforeAll(async () => {
    state.pi = await ensurePi(release);
  }, 600_000);
  beforeEach(async () => {
    const world = await piWorld();
    state.world = world;
    const install = await runPi(state.pi as InstalledPi, ["install", bridgeDir(world)], world);
    expect(install.code, `pi install failed: ${install.stderr}`).toBe(0);
  });
  afterEach(async () => state.world?.stop());
  return state as { pi: InstalledPi; world: PiWorld };
}

describe.each(Object.values(PI_RELEASES))("Pi $packageName@$version with the bridge installed by `pi install`", (release) => {
  const live = installedWorld(release);

  it("refers to the bridge directory in place, copying nothing", () => {
    const settings = JSON.parse(readFileSync(join(live.world.agentDir, "settings.json"), "utf8")) as { packages?: unknown[] };
    expect(settings.packages).toHaveLength(1);
    const entry = settings.packages?.[0];
    const source = typeof entry === "string" ? entry : (entry as { source: string }).source;
    // Pi stores a local source relative to the settings file's directory.
    expect(realpathSync(resolve(live.world.agentDir, source))).toBe(realpathSync(BRIDGE_DIR));
    const bridgeFiles = new Set(readdirSync(join(BRIDGE_DIR, "lib")).concat("index.js"));
    expect(filesUnder(live.world.agentDir).filter((file) => bridgeFiles.has(file.split("/").at(-1) ?? ""))).toEqual([]);
  });

  it("writes the session's record through the real hook, found beside the bridge", async () => {
    const run = await runPi(live.pi, ["-p", "please RUNTOOL now"], live.world);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(FINAL_TEXT);
    await queueDrained(live.world);
    const { records, invalid } = listRecords(sessionsDirOf(live.world.sandbox.stateDir));
    expect(invalid).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]?.record).toMatchObject({
      harness: "pi",
      identity: "emitter",
      pid: run.pid,
      status: "ended",
      detail: "session closed",
      last_event: "pi.session-shutdown",
      cwd: realpathSync(live.world.projectDir),
    });
    expect(records[0]?.record.process_start).toMatch(/^linux:/);
    expect(records[0]?.record.sequence).toBeGreaterThanOrEqual(5);
  });

  it("reports every transition of two prompts, one with a tool call, with the real Pi process's PID", async () => {
    const run = await runPi(live.pi, ["-p", "say hello", "please RUNTOOL now"], live.world, { env: tapped(live.world) });
    expect(run.code, run.stderr).toBe(0);
    const entries = readHookLog(live.world);
    expectAppliedByRealHook(entries, run.pid);
    expect(summary(entries)).toEqual([
      ["pi.session-start", "started", "session started"],
      ["pi.before-agent-start", "running", "processing prompt"],
      ["pi.agent-end", "idle", DEFAULT_TEXT], // the first run: agent_settled (Pi 1.x) would say the same
      ["pi.before-agent-start", "running", "processing prompt"],
      ["pi.tool-execution-start", "running", "tool:bash"],
      // Pi 1.x settles after agent_end; the bridge, having seen agent_settled once, waits for it.
      release.settles ? ["pi.agent-settled", "idle", FINAL_TEXT] : ["pi.agent-end", "idle", FINAL_TEXT],
      ["pi.session-shutdown", "ended", "session closed"],
    ]);
    expect(new Set(entries.map(({ payload }) => payload.session_id)).size).toBe(1);
  });

  it("reports a provider error (HTTP 400) as error, then the end", async () => {
    const run = await runPi(live.pi, ["-p", "FAILAPI"], live.world, { env: tapped(live.world) });
    expect(run.code).not.toBe(0);
    const entries = readHookLog(live.world);
    expectAppliedByRealHook(entries, run.pid);
    expect(summary(entries).map(([event, status]) => [event, status])).toEqual([
      ["pi.session-start", "started"],
      ["pi.before-agent-start", "running"],
      ["pi.agent-end", "error"],
      ["pi.session-shutdown", "ended"],
    ]);
    expect(entries[2]?.payload.detail).toMatch(/^turn failed: 400\b.*synthetic failure requested by FAILAPI/);
  });
});

describe(`Pi ${PI_RELEASES.current.packageName}@${PI_RELEASES.current.version} in RPC mode`, () => {
  const live = installedWorld(PI_RELEASES.current);

  it("reports waiting while an extension asks, during a run and while idle, and what follows", async () => {
    const rpc = startRpcPi(live.pi, ["-e", CONFIRM_EXTENSION], live.world, tapped(live.world));
    try {
      await waitForLog(live.world, (entry) => entry.payload.status === "started", "started");
      rpc.send({ id: "p1", type: "prompt", message: "please RUNTOOL now" });
      const gate = await rpc.next((record) => record.type === "extension_ui_request" && record.method === "confirm");
      expect(gate.title).toBe("Run bash?");
      const waiting = await waitForLog(live.world, (entry) => entry.payload.status === "waiting", "waiting");
      expect(waiting.record).toMatchObject({ status: "waiting", detail: "waiting for input: Run bash?" });
      rpc.send({ type: "extension_ui_response", id: gate.id, confirmed: true });
      await waitForLog(live.world, (entry) => entry.payload.status === "idle", "idle after the run");

      rpc.send({ id: "p2", type: "prompt", message: "/tongs-ask" });
      const question = await rpc.next((record) => record.type === "extension_ui_request" && record.method === "confirm");
      await waitForLog(live.world, (entry) => entry.payload.detail === "waiting for input: Idle question", "the idle question");
      rpc.send({ type: "extension_ui_response", id: question.id, confirmed: false });
      await waitForLog(
        live.world,
        (entry) => entry.payload.event_id === "pi.ui-prompt-end" && entry.payload.status === "idle",
        "idle after the question",
      );
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    const entries = readHookLog(live.world);
    expectAppliedByRealHook(entries, rpc.pid);
    expect(summary(entries)).toEqual([
      ["pi.session-start", "started", "session started"],
      ["pi.before-agent-start", "running", "processing prompt"],
      ["pi.tool-execution-start", "running", "tool:bash"],
      ["pi.ui-prompt-start", "waiting", "waiting for input: Run bash?"],
      ["pi.ui-prompt-end", "running", "tool:bash"],
      ["pi.agent-end", "idle", FINAL_TEXT],
      ["pi.ui-prompt-start", "waiting", "waiting for input: Idle question"],
      ["pi.ui-prompt-end", "idle", FINAL_TEXT],
      ["pi.session-shutdown", "ended", "session closed"],
    ]);
  });
  it("ends the old session and starts the new one on new_session, with one instance token and one sequence", async () => {
    const rpc = startRpcPi(live.pi, [], live.world, tapped(live.world));
    try {
      const first = await waitForLog(live.world, (entry) => entry.payload.status === "started", "the first start");
      rpc.send({ id: "n1", type: "new_session" });
      await rpc.next((record) => record.type === "response" && record.id === "n1");
      await waitForLog(
        live.world,
        (entry) => entry.payload.status === "started" && entry.payload.session_id !== first.payload.session_id,
        "the second start",
      );
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    const entries = readHookLog(live.world);
    expectAppliedByRealHook(entries, rpc.pid);
    const sessions = [...new Set(entries.map(({ payload }) => payload.session_id))];
    expect(sessions).toHaveLength(2);
    expect(entries.map(({ payload }) => [sessions.indexOf(payload.session_id), payload.event_id, payload.detail])).toEqual([
      [0, "pi.session-start", "session started"],
      [0, "pi.session-shutdown", "session closed (new)"],
      [1, "pi.session-start", "new session"],
      [1, "pi.session-shutdown", "session closed"],
    ]);
    // Pi imported the extension afresh for the new session; the process-wide token and counter carried over.
    expect(new Set(entries.map(({ payload }) => payload.instance_id)).size).toBe(1);
    await queueDrained(live.world);
    const { records } = listRecords(sessionsDirOf(live.world.sandbox.stateDir));
    expect(records.map(({ record }) => record.status)).toEqual(["ended", "ended"]);
  });

  it("reports an aborted run (Esc, or RPC abort) as idle, turn interrupted, as Esc ends in Claude Code and Codex", async () => {
    const rpc = startRpcPi(live.pi, [], live.world, tapped(live.world));
    try {
      await waitForLog(live.world, (entry) => entry.payload.status === "started", "started");
      rpc.send({ id: "p1", type: "prompt", message: "SLOW hello" }); // the provider holds the stream for 2 s
      await waitForLog(live.world, (entry) => entry.payload.status === "running", "running");
      rpc.send({ id: "a1", type: "abort" });
      const aborted = await waitForLog(live.world, (entry) => entry.payload.status === "idle", "idle");
      expect(aborted.payload).toMatchObject({ event_id: "pi.agent-end", detail: "turn interrupted" });
      rpc.send({ id: "p2", type: "prompt", message: "say hello" });
      // The second run's own end (the first idle is the abort's).
      await waitForLog(
        live.world,
        (entry) => entry.payload.status === "idle" && entry.payload.detail === DEFAULT_TEXT,
        "idle after the reply",
      );
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    const entries = readHookLog(live.world);
    expectAppliedByRealHook(entries, rpc.pid);
    // Which event ends the second run (agent_end or agent_settled) depends on whether the bridge has seen an
    // agent_settled by then; the states are what a record shows.
    expect(summary(entries).map(([, status, detail]) => `${String(status)}${status === "idle" ? `:${String(detail)}` : ""}`)).toEqual([
      "started",
      "running",
      "idle:turn interrupted",
      "running",
      `idle:${DEFAULT_TEXT}`,
      "ended",
    ]);
    expect(entries[2]?.payload.event_id).toBe("pi.agent-end");
  });
});

/** The npm tarball of this checkout, unpacked as `npm install -g tongs-agents` would lay it out; returns its pi-bridge. */
function unpackedPackage(world: PiWorld): string {
  const dir = join(world.sandbox.root, "packed");
  mkdirSync(dir);
  // --ignore-scripts: dist/ was built by the global setup; `prepare` would build it again.
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: ROOT, encoding: "utf8" }),
  ) as [{ filename: string }];
  execFileSync("tar", ["-xzf", join(dir, packed.filename), "-C", dir]);
  return join(dir, "package", "pi-bridge");
}

describe(`Pi ${PI_RELEASES.current.packageName}@${PI_RELEASES.current.version} with the bridge from the packed npm package`, () => {
  const live = installedWorld(PI_RELEASES.current, unpackedPackage);

  it("runs the hook shipped beside it in the package", async () => {
    const run = await runPi(live.pi, ["-p", "say hello"], live.world);
    expect(run.code, run.stderr).toBe(0);
    await queueDrained(live.world);
    const { records } = listRecords(sessionsDirOf(live.world.sandbox.stateDir));
    expect(records.map(({ record }) => [record.pid, record.status, record.last_event])).toEqual([
      [run.pid, "ended", "pi.session-shutdown"],
    ]);
    const settings = JSON.parse(readFileSync(join(live.world.agentDir, "settings.json"), "utf8")) as { packages: string[] };
    expect(resolve(live.world.agentDir, settings.packages[0] as string)).toBe(
      join(live.world.sandbox.root, "packed", "package", "pi-bridge"),
    );
  });
});

/** A private tmux server (its own socket name, killed by that name), running `pi` in its one pane. */
function tmuxPi(pi: InstalledPi, world: PiWorld, env: NodeJS.ProcessEnv) {
  const socket = `tongs-live-${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8", env: { ...world.env, ...env } }).trim();
  // The server inherits this environment, and the pane runs Pi directly (no shell): the pane's PID is Pi's.
  tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "160", "-y", "45", "-c", world.projectDir, "--", process.execPath, pi.cli);
  const [paneId, panePid, paneTty] = tmux("display-message", "-p", "-t", "t", "#{pane_id} #{pane_pid} #{pane_tty}").split(" ");
  return {
    socket,
    pane: { id: paneId as string, pid: Number(panePid), tty: paneTty as string },
    tmux,
    async waitForScreen(text: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!tmux("capture-pane", "-p", "-t", "t").includes(text)) {
        if (Date.now() > deadline)
          throw new Error(`screen never showed ${JSON.stringify(text)}:\n${tmux("capture-pane", "-p", "-t", "t")}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop() {
      try {
        tmux("kill-server");
      } catch {
        // already gone: Pi quit and the server exited with its last pane
      }
    },
  };
}

// Pi's Esc in a real pane is the claim docs/evidence.md records for this file (issue: Esc ends as in Claude Code and Codex).
const evidence = createEvidence("pi-esc", "Pi interactive in tmux on this machine: Esc while a reply streams", { containers: false });
afterAll(() => void evidence.write());

describe.each(Object.values(PI_RELEASES))("Pi $packageName@$version interactive, in a tmux pane", (release) => {
  const live = installedWorld(release);

  it("reports the session with the pane's terminal identity, and ends it on /quit", async () => {
    const session = tmuxPi(live.pi, live.world, tapped(live.world));
    try {
      await waitForLog(live.world, (entry) => entry.payload.status === "started", "started");
      await session.waitForScreen("fake-model"); // the footer: the editor is ready for input
      session.tmux("send-keys", "-t", "t", "say hello", "Enter");
      await waitForLog(live.world, (entry) => entry.payload.status === "idle", "idle");
      session.tmux("send-keys", "-t", "t", "/quit", "Enter");
      await waitForLog(live.world, (entry) => entry.payload.status === "ended", "ended");
    } finally {
      session.stop();
    }
    const entries = readHookLog(live.world);
    expectAppliedByRealHook(entries, session.pane.pid);
    expect(summary(entries)).toEqual([
      ["pi.session-start", "started", "session started"],
      ["pi.before-agent-start", "running", "processing prompt"],
      ["pi.agent-end", "idle", DEFAULT_TEXT],
      ["pi.session-shutdown", "ended", "session closed"],
    ]);
    for (const { record } of entries) {
      expect(record?.terminal).toEqual({
        env: { TMUX: expect.stringContaining(session.socket), TMUX_PANE: session.pane.id, TERM_PROGRAM: "tmux" },
        tty: session.pane.tty,
      });
    }
  });

  it("Esc typed while the reply streams ends the run idle, turn interrupted, as Esc ends in Claude Code and Codex", async ({ task }) => {
    evidence.addVersions({ [`pi (npm ${release.packageName})`]: release.version });
    evidence.prove(task, {
      claim: `Pi ${release.version}: Esc typed while the provider holds the reply ends the run: the record goes idle, \`turn interrupted\` (the bridge's agent_end), as Esc ends in Claude Code and Codex; /quit then ends it`,
      kind: "live",
      how: `${release.packageName}@${release.version} interactive in a private tmux server (send-keys), the bridge from \`tongs-agents install --agent pi\`; synthetic provider on 127.0.0.1 holding the stream (SLOW); the events the real hook applied, read from its log`,
    });
    const session = tmuxPi(live.pi, live.world, tapped(live.world));
    try {
      await waitForLog(live.world, (entry) => entry.payload.status === "started", "started");
      await session.waitForScreen("fake-model");
      session.tmux("send-keys", "-t", "t", "SLOW hello", "Enter"); // the provider holds the stream for 2 s
      await waitForLog(live.world, (entry) => entry.payload.status === "running", "running");
      session.tmux("send-keys", "-t", "t", "Escape");
      await waitForLog(live.world, (entry) => entry.payload.status === "idle", "idle");
      session.tmux("send-keys", "-t", "t", "/quit", "Enter");
      await waitForLog(live.world, (entry) => entry.payload.status === "ended", "ended");
    } finally {
      session.stop();
    }
    const entries = readHookLog(live.world);
    expectAppliedByRealHook(entries, session.pane.pid);
    // An agent_settled after it (Pi 1.6) would say the same, so the bridge sends nothing more.
    expect(summary(entries)).toEqual([
      ["pi.session-start", "started", "session started"],
      ["pi.before-agent-start", "running", "processing prompt"],
      ["pi.agent-end", "idle", "turn interrupted"],
      ["pi.session-shutdown", "ended", "session closed"],
    ]);
  });
});
