import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FleetEventSchema } from "../src/core/schema.ts";
import { interpretFleetEvent } from "../src/harnesses/events.ts";
import { findHarness } from "../src/harnesses/registry.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { listRecords } from "../src/store/records.ts";
import { fakeSpawn } from "../test/fake-spawn.ts";
import { startFakeHarness, type FakeHarness } from "../test/processes.ts";
import { makeSandbox, type Sandbox } from "../test/sandbox.ts";
import { createPlugin } from "./index.js";

type Hooks = { event: (input: { event: unknown }) => Promise<void>; "tool.execute.before": (input: unknown) => Promise<void> };
type Step = { kind: "event" | "tool.execute.before"; payload: { input?: unknown } };

const FOUND = () => ({ ok: true as const, path: "/opt/tongs-agents/bin/tongs-agents-hook.cjs", source: "env" as const });
const world = { pid: 4242, execPath: "/opt/opencode/bin/opencode.exe", versions: { bun: "1.3.14", node: "24.3.0" }, env: {} };
const opencode = findHarness("opencode");

const fixture = (name: string): Step[] =>
  readFileSync(new URL(`./fixtures/${name}.jsonl`, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Step);

/** Deliver captured plugin calls the way OpenCode does: bus events to `event`, tool starts to `tool.execute.before`. */
async function deliver(hooks: Hooks, steps: readonly Step[]) {
  for (const step of steps)
    if (step.kind === "event") await hooks.event({ event: step.payload });
    else await hooks["tool.execute.before"](step.payload.input);
}

const event = (type: string, properties: Record<string, unknown>): Step => ({ kind: "event", payload: { type, properties } as never });
const created = (id: string, directory = "/work/app") => event("session.created", { sessionID: id, info: { id, directory } });

describe("plugin with a fake OpenCode", () => {
  it("sends each state once, contract-valid, with the process's PID and one increasing sequence", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    const plugin = createPlugin(
      { node: "/usr/bin/node", hook: "/opt/tongs-agents/bin/tongs-agents-hook.cjs" },
      {
        ...world,
        spawn: spawn.spawn,
        instanceId: "inst-1",
      },
    );
    const hooks = (await plugin({ directory: "/home/user/project" })) as Hooks;
    await deliver(hooks, fixture("tui-runtool-permission"));
    await spawn.started(7);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the last payload is written on the next turns
    const payloads = spawn.children.map((child) => child.payload);
    expect(payloads.map((payload) => [payload?.event_id, payload?.status, payload?.detail, payload?.tool])).toEqual([
      ["opencode.session-start", "started", "session started", ""],
      ["opencode.session-busy", "running", "processing prompt", ""],
      ["opencode.tool-execute-before", "running", "bash", "bash"],
      ["opencode.permission-asked", "waiting", "permission: bash", "bash"],
      ["opencode.permission-replied", "running", "bash", "bash"],
      ["opencode.session-busy", "running", "processing prompt", ""],
      ["opencode.session-idle", "idle", "waiting for the next prompt", ""],
    ]);
    for (const payload of payloads) {
      const parsed = FleetEventSchema.safeParse(payload);
      expect(parsed.success).toBe(true);
      if (parsed.success && opencode) expect(interpretFleetEvent(opencode, parsed.data)).toMatchObject({ ok: true });
      expect(payload).toMatchObject({ instance_id: "inst-1", pid: 4242, cwd: "/home/user/project" });
    }
    expect(payloads.map((payload) => payload?.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(
      spawn.children.every(
        (child) =>
          child.command === "/usr/bin/node" &&
          child.args.join(" ") === "/opt/tongs-agents/bin/tongs-agents-hook.cjs fleet-event --agent opencode",
      ),
    ).toBe(true);
  });

  it("finds the hook and a Node.js itself when the installer recorded none (OpenCode runs on Bun)", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    const plugin = createPlugin({}, { ...world, env: { PATH: "/nonexistent" }, locate: FOUND, spawn: spawn.spawn, instanceId: "i" });
    const hooks = (await plugin({ directory: "/w" })) as Hooks;
    await hooks.event({ event: created("s").payload });
    // No `node` on PATH and Bun's own executable cannot run the hook: nothing is sent, nothing throws.
    expect(spawn.children).toHaveLength(0);
  });

  it("sends nothing while no hook is found, and looks again at the next session start", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    let installed = false;
    const locate = () => (installed ? FOUND() : { ok: false as const, reason: "not found" });
    const plugin = createPlugin({ node: "/usr/bin/node" }, { ...world, locate, spawn: spawn.spawn, instanceId: "i" });
    const hooks = (await plugin({ directory: "/w" })) as Hooks;
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50)); // past the deferred delivery
    await hooks.event({ event: created("s1").payload });
    await settle();
    expect(spawn.children).toHaveLength(0);
    installed = true;
    await hooks.event({ event: event("session.status", { sessionID: "s1", status: { type: "busy" } }).payload });
    await settle();
    expect(spawn.children).toHaveLength(0); // not before a session starts
    await hooks.event({ event: created("s2").payload });
    await spawn.started(1);
    await settle();
    expect(spawn.children.map((child) => [child.args[0], child.payload?.session_id])).toEqual([
      ["/opt/tongs-agents/bin/tongs-agents-hook.cjs", "s2"],
    ]);
  });

  it("never throws into OpenCode, whatever it passes", async () => {
    const spawn = fakeSpawn({ autoExit: true });
    const plugin = createPlugin({ node: "/n", hook: "/h" }, { ...world, spawn: spawn.spawn, instanceId: "i" });
    for (const ctx of [undefined, null, 7, {}, { directory: 5 }]) {
      const hooks = (await plugin(ctx)) as Hooks;
      for (const value of [undefined, null, 7, {}, { type: "session.created" }, { type: "session.idle", properties: null }]) {
        await expect(hooks.event({ event: value })).resolves.toBeUndefined();
        await expect(hooks.event(value as never)).resolves.toBeUndefined();
        await expect(hooks["tool.execute.before"](value)).resolves.toBeUndefined();
      }
    }
    expect(spawn.children).toHaveLength(0);
  });
});

describe("plugin through the real hook", () => {
  let sandbox: Sandbox;
  let opencodeProcess: FakeHarness;
  beforeEach(async () => {
    sandbox = makeSandbox();
    opencodeProcess = await startFakeHarness("opencode", sandbox); // a live process named `opencode` whose PID is reported
  });
  afterEach(async () => {
    await opencodeProcess.stop();
    sandbox.cleanup();
  });

  it("finds the hook beside the package; two sessions of one process stay two records", async () => {
    const env = { ...sandbox.env };
    delete env.TONGS_AGENTS_HOOK;
    const plugin = createPlugin({ node: process.execPath }, { env, pid: opencodeProcess.pid, instanceId: "real-hook" });
    const hooks = (await plugin({ directory: "/work/app" })) as Hooks;
    const sessions = sessionsDirOf(sandbox.stateDir);
    const records = async (expected: number) => {
      for (let tries = 0; tries < 150; tries++) {
        const { records: found } = listRecords(sessions);
        if (found.length === expected) return new Map(found.map((entry) => [entry.record.session_id, entry.record]));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`expected ${expected} records`);
    };
    await deliver(hooks, [
      created("ses_a"),
      created("ses_b"),
      event("session.status", { sessionID: "ses_a", status: { type: "busy" } }),
      event("permission.asked", { id: "per_1", sessionID: "ses_a", permission: "bash" }),
      event("session.error", { sessionID: "ses_b", error: { name: "APIError", data: { statusCode: 400, message: "bad" } } }),
    ]);
    const waitFor = async (id: string, status: string) => {
      for (let tries = 0; tries < 150; tries++) {
        const record = (await records(2)).get(id);
        if (record?.status === status) return record;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${id} never became ${status}: ${JSON.stringify((await records(2)).get(id))}`);
    };
    const waiting = await waitFor("ses_a", "waiting");
    expect(waiting.pending?.map((wait) => wait.kind)).toEqual(["input"]);
    expect(waiting).toMatchObject({
      harness: "opencode",
      identity: "emitter",
      pid: opencodeProcess.pid,
      instance_id: "real-hook",
      detail: "permission: bash",
      last_event: "opencode.permission-asked",
      cwd: "/work/app",
    });
    expect(await waitFor("ses_b", "error")).toMatchObject({ pid: opencodeProcess.pid, detail: "turn failed: APIError 400: bad" });
    await hooks.event({ event: event("permission.replied", { sessionID: "ses_a", requestID: "per_1", reply: "once" }).payload });
    const answered = await waitFor("ses_a", "running");
    expect(answered).toMatchObject({ last_event: "opencode.permission-replied" });
    expect(answered.pending ?? []).toEqual([]); // the dialog's wait is answered
  });
});
