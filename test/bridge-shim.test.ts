// Pi's bridge and OpenCode's plugin hand their events to the hook shim, not to a Node hook per event: the real sender
// (pi-bridge/lib/sender.js) spawning the real shim, the real drainer applying what it queued. The emitter the payload
// names is the sender's own process, the shim's parent: its start time is the one the shim captured.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { normalizedPayload } from "../pi-bridge/lib/payload.js";
import { createSender } from "../pi-bridge/lib/sender.js";
import { linuxProcessSource } from "../src/core/proc.ts";
import { stopDrainer } from "../src/store/drainer-process.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { HOOK_BIN, ROOT } from "./processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

const SHIM = join(ROOT, "bin", "tongs-agents-hook.sh");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox("tongs-bridge-shim-");
});
afterEach(async () => {
  await stopDrainer(sandbox.stateDir);
  sandbox.cleanup();
});

function records(): Record<string, unknown>[] {
  const dir = sessionsDirOf(sandbox.stateDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^[0-9a-f]{64}\.json$/.test(name))
    .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, unknown>);
}

describe("a bridge's events through the hook shim", () => {
  it("are queued by the shim and applied by the drainer in order, the emitter proved by the start time the shim captured", async () => {
    const started: string[] = [];
    const sender = createSender({
      agent: "pi",
      command: () => ({ node: process.execPath, hook: HOOK_BIN, shim: SHIM }),
      spawn: (file, args, options) => {
        started.push(file);
        return spawn(file, args, options);
      },
      env: { ...sandbox.env, TONGS_AGENTS_NOTIFY: "off" },
    });
    const event = (sequence: number, event: string, status: "started" | "running" | "idle") =>
      normalizedPayload({
        harness: "pi",
        event,
        sessionId: "pi-session",
        instanceId: "pi-instance",
        sequence,
        pid: process.pid,
        cwd: sandbox.root,
        status,
        detail: event,
        tool: "",
      });
    sender.enqueue(event(1, "session-start", "started"), { pinned: true });
    sender.enqueue(event(2, "agent-start", "running"));
    sender.enqueue(event(3, "agent-end", "idle"));
    expect(await sender.flush(20_000)).toBe(true);
    expect(sender.stats).toMatchObject({ sent: 3, failed: 0, timedOut: 0 });
    expect(started).toEqual(["/bin/sh", "/bin/sh", "/bin/sh"]);

    let record: Record<string, unknown> | undefined;
    for (let tries = 0; tries < 200 && record?.arrival_sequence !== 3; tries++) {
      record = records()[0];
      if (record?.arrival_sequence !== 3) await sleep(50);
    }
    const own = await linuxProcessSource().basics(process.pid);
    expect(records()).toHaveLength(1);
    expect(record).toMatchObject({
      harness: "pi",
      session_id: "pi-session",
      identity: "emitter",
      pid: process.pid,
      process_start: own?.startToken,
      status: "idle",
      arrival_sequence: 3,
    });
  });
});
