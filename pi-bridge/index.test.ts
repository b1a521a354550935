import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { interpretFleetEvent } from "../src/harnesses/events.ts";
import { findHarness } from "../src/harnesses/registry.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { FleetEventSchema } from "../src/core/schema.ts";
import { stopDrainer } from "../src/store/drainer-process.ts";
import { listRecords } from "../src/store/records.ts";
import { fakeSpawn } from "../test/fake-spawn.ts";
import { makeSandbox, type Sandbox } from "../test/sandbox.ts";
import bridgeEntry, { attachBridge } from "./index.js";
import { PI_EVENTS } from "./lib/map.js";

type Handler = (event: unknown, ctx: unknown) => unknown;

/** The part of Pi's ExtensionAPI the bridge uses, recording its subscriptions. */
function fakePi() {
  const handlers = new Map<string, Handler[]>();
  return {
    handlers,
    on(event: string, handler: Handler) {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
    },
    /** Deliver an event as Pi does: every handler, in order; returns the first handler's result. */
    emit(event: string, data: unknown = {}, ctx: unknown = context()) {
      return (handlers.get(event) ?? []).map((handler) => handler(data, ctx))[0];
    },
  };
}

function context(sessionId = "sess-1", cwd = "/work/app") {
  return { cwd, hasUI: false, sessionManager: { getSessionId: () => sessionId, getCwd: () => cwd } };
}

const FOUND = () => ({ ok: true as const, path: "/opt/tongs-agents/bin/tongs-agents-hook.cjs", source: "env" as const });
const world = { pid: 4242, execPath: "/usr/bin/node", versions: { node: "22.23.3" }, locate: FOUND, env: {} };
const reply = (stopReason: string, errorMessage?: string) => ({
  messages: [{ role: "assistant", content: [{ type: "text", text: "Done." }], stopReason, errorMessage }],
});
const pi = findHarness("pi");

describe("bridge with a fake Pi", () => {
  it("subscribes to the lifecycle events and sends contract-valid payloads", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    const shared = { instanceId: "inst-1", sequence: 0 };
    const fake = fakePi();
    attachBridge(fake, { ...world, spawn: spawn.spawn, shared });
    expect([...fake.handlers.keys()].sort()).toEqual([...PI_EVENTS].sort());

    fake.emit("session_start", { reason: "startup" });
    fake.emit("before_agent_start", { prompt: "RUNTOOL" });
    fake.emit("agent_start"); // same state as before_agent_start: no second hook process
    fake.emit("tool_execution_start", { toolName: "bash" });
    fake.emit("agent_end", reply("stop"));
    fake.emit("agent_settled", { aborted: false }); // same state as agent_end's idle
    fake.emit("before_agent_start", {});
    fake.emit("agent_end", reply("error", "400 status code"));
    fake.emit("agent_settled", { aborted: false });
    await fake.emit("session_shutdown", { reason: "quit" });

    const payloads = spawn.children.map((child) => child.payload);
    expect(payloads.map((payload) => [payload?.event_id, payload?.status, payload?.detail, payload?.tool])).toEqual([
      ["pi.session-start", "started", "session started", ""],
      ["pi.before-agent-start", "running", "processing prompt", ""],
      ["pi.tool-execution-start", "running", "bash", "bash"],
      ["pi.agent-end", "idle", "Done.", ""],
      ["pi.before-agent-start", "running", "processing prompt", ""],
      ["pi.agent-end", "error", "turn failed: 400 status code", ""],
      ["pi.session-shutdown", "ended", "session closed", ""],
    ]);
    for (const payload of payloads) {
      const parsed = FleetEventSchema.safeParse(payload);
      expect(parsed.success).toBe(true);
      if (parsed.success && pi) expect(interpretFleetEvent(pi, parsed.data)).toMatchObject({ ok: true });
      expect(payload).toMatchObject({ schema_version: 1, session_id: "sess-1", instance_id: "inst-1", pid: 4242, cwd: "/work/app" });
    }
    expect(payloads.map((payload) => payload?.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(
      spawn.children.every(
        (child) =>
          child.command === "/usr/bin/node" &&
          child.args.join(" ") === "/opt/tongs-agents/bin/tongs-agents-hook.cjs fleet-event --agent pi",
      ),
    ).toBe(true);
  });

  it("keeps one instance token and an increasing sequence across extension reloads in one process", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    const shared = { instanceId: "inst-1", sequence: 0 };
    const first = fakePi();
    attachBridge(first, { ...world, spawn: spawn.spawn, shared });
    first.emit("session_start", { reason: "startup" });
    await first.emit("session_shutdown", { reason: "new" });
    const second = fakePi(); // Pi loads its extensions again for the new session
    attachBridge(second, { ...world, spawn: spawn.spawn, shared });
    second.emit("session_start", { reason: "new" }, context("sess-2"));
    await second.emit("session_shutdown", { reason: "quit" }, context("sess-2"));
    expect(
      spawn.children.map((child) => [
        child.payload?.session_id,
        child.payload?.event_id,
        child.payload?.sequence,
        child.payload?.instance_id,
      ]),
    ).toEqual([
      ["sess-1", "pi.session-start", 1, "inst-1"],
      ["sess-1", "pi.session-shutdown", 2, "inst-1"],
      ["sess-2", "pi.session-start", 3, "inst-1"],
      ["sess-2", "pi.session-shutdown", 4, "inst-1"],
    ]);
  });

  it("sends nothing without a usable session id, and never throws into Pi", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    const fake = fakePi();
    const bridge = attachBridge(fake, { ...world, spawn: spawn.spawn, shared: { instanceId: "i", sequence: 0 } });
    const hostile = [
      undefined,
      null,
      {},
      {
        sessionManager: {
          getSessionId: () => {
            throw new Error("gone");
          },
        },
        get cwd(): string {
          throw new Error("gone");
        },
      },
      { sessionManager: { getSessionId: () => "x".repeat(600) }, cwd: "/w" },
      { sessionManager: { getSessionId: () => "bad\u0000id" }, cwd: "/w" },
    ];
    for (const ctx of hostile) {
      for (const name of PI_EVENTS) {
        // Straight to the handlers: fake.emit() would put a default context in place of `undefined`.
        for (const event of [undefined, null, 7, { messages: "x" }])
          for (const handler of fake.handlers.get(name) ?? []) expect(() => handler(event, ctx)).not.toThrow();
      }
    }
    expect(await bridge.sender.flush(10_000)).toBe(true);
    expect(spawn.children).toHaveLength(0);
  });

  it("falls back to Pi's working directory when the context has none", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    const fake = fakePi();
    const bridge = attachBridge(fake, {
      ...world,
      spawn: spawn.spawn,
      shared: { instanceId: "i", sequence: 0 },
      fallbackCwd: () => "/from/process",
    });
    fake.emit("session_start", {}, { sessionManager: { getSessionId: () => "s" } });
    await bridge.sender.flush(10_000);
    expect(spawn.children[0]?.payload).toMatchObject({ session_id: "s", cwd: "/from/process" });
  });

  it("holds Pi's shutdown for a bounded time when the hook hangs", async () => {
    const spawn = fakeSpawn(); // hook processes never exit on their own
    const fake = fakePi();
    attachBridge(fake, {
      ...world,
      spawn: spawn.spawn,
      shared: { instanceId: "i", sequence: 0 },
      sendTimeoutMs: 60_000,
      shutdownWaitMs: 50,
    });
    fake.emit("session_start", {});
    const shutdown = fake.emit("session_shutdown", { reason: "quit" });
    expect(shutdown).toBeInstanceOf(Promise);
    await expect(shutdown).resolves.toBeUndefined(); // resolves after the bound although the hook is still running
    expect(spawn.children[0]?.exited).toBe(false);
    spawn.children[0]?.exit();
  });

  it("sends nothing when no hook is found, and looks again at the next session start", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    let installed = false;
    const locate = () => (installed ? FOUND() : { ok: false as const, reason: "not found" });
    const fake = fakePi();
    const bridge = attachBridge(fake, { ...world, locate, spawn: spawn.spawn, shared: { instanceId: "i", sequence: 0 } });
    fake.emit("session_start", {});
    await bridge.sender.flush(10_000);
    expect(spawn.children).toHaveLength(0);
    installed = true;
    fake.emit("session_start", { reason: "new" });
    await bridge.sender.flush(10_000);
    expect(spawn.children.map((child) => child.payload?.detail)).toEqual(["new session"]);
  });

  it("is what Pi's loader calls: the default export subscribes, and never throws", () => {
    const fake = fakePi();
    bridgeEntry(fake);
    expect(fake.handlers.size).toBe(PI_EVENTS.length);
    expect(() => bridgeEntry(null as never)).not.toThrow();
  });
});

describe("bridge through the real hook", () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox();
  });
  afterEach(async () => {
    await stopDrainer(sandbox.stateDir);
    sandbox.cleanup();
  });

  it("finds the hook (and its shim) beside the package and writes each state to the session's record", async () => {
    const fake = fakePi();
    const env = { ...sandbox.env };
    delete env.TONGS_AGENTS_HOOK;
    // As in Pi, the bridge reports the process it runs in: the shim's parent, whose start time the shim captures.
    const bridge = attachBridge(fake, { env, pid: process.pid, shared: { instanceId: "real-hook", sequence: 0 } });
    const sessions = sessionsDirOf(sandbox.stateDir);
    const stateAfter = async (name: string, event: unknown = {}) => {
      await fake.emit(name, event);
      expect(await bridge.sender.flush(15_000)).toBe(true);
      // The shim queues the event and returns; the drainer applies it moments later.
      for (let tries = 0; tries < 300; tries++) {
        const { records } = listRecords(sessions);
        if (records[0]?.record.sequence === bridge.shared.sequence) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const { records } = listRecords(sessions);
      expect(records).toHaveLength(1);
      return records[0]?.record;
    };
    const first = await stateAfter("session_start", { reason: "startup" });
    expect(bridge.shared.command?.shim, "the shim beside the hook").toMatch(/\/bin\/tongs-agents-hook\.sh$/);
    expect(first).toMatchObject({
      harness: "pi",
      identity: "emitter",
      pid: process.pid,
      status: "started",
      session_id: "sess-1",
      instance_id: "real-hook",
      cwd: "/work/app",
    });
    expect((await stateAfter("session_start"))?.process_start).toMatch(/^linux:/);
    expect(await stateAfter("before_agent_start")).toMatchObject({ status: "running", last_event: "pi.before-agent-start" });
    expect(await stateAfter("tool_execution_start", { toolName: "bash" })).toMatchObject({ status: "running", tool: "bash" });
    expect(await stateAfter("ui_prompt_start", { title: "Allow?" })).toMatchObject({
      status: "waiting",
      detail: "waiting for input: Allow?",
    });
    expect(await stateAfter("ui_prompt_end")).toMatchObject({ status: "running", last_event: "pi.ui-prompt-end" });
    expect(await stateAfter("agent_end", reply("aborted"))).toMatchObject({ status: "idle", detail: "turn interrupted" });
    expect(await stateAfter("agent_start")).toMatchObject({ status: "running" });
    expect(await stateAfter("agent_end", reply("stop"))).toMatchObject({ status: "idle", detail: "Done." });
    expect(await stateAfter("ui_prompt_start")).toMatchObject({ status: "waiting" });
    expect(await stateAfter("ui_prompt_end")).toMatchObject({ status: "idle", last_event: "pi.ui-prompt-end" });
    expect(await stateAfter("session_shutdown", { reason: "quit" })).toMatchObject({
      status: "ended",
      last_event: "pi.session-shutdown",
      sequence: bridge.shared.sequence,
    });
  });
});
