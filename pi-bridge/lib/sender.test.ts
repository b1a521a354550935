import { describe, expect, it } from "vitest";
import { fakeSpawn } from "../../test/fake-spawn.ts";
import { createSender } from "./sender.js";

const HOOK = { node: "/usr/bin/node", hook: "/opt/tongs-agents/bin/tongs-agents-hook.cjs" };
const tick = () => new Promise((resolve) => setImmediate(resolve));

type Command = typeof HOOK & { shim?: string };
function setup(options: { maxQueue?: number; sendTimeoutMs?: number; autoExit?: boolean; command?: () => Command | undefined } = {}) {
  const fake = fakeSpawn({ autoExit: options.autoExit ?? false });
  const sender = createSender({
    command: options.command ?? (() => HOOK),
    spawn: fake.spawn,
    env: { PATH: "/usr/bin" },
    maxQueue: options.maxQueue,
    sendTimeoutMs: options.sendTimeoutMs,
  });
  return { fake, sender };
}

describe("sender", () => {
  it("runs the hook without a shell, payload on stdin, one process at a time, in order", async () => {
    const { fake, sender } = setup();
    for (const sequence of [1, 2, 3]) sender.enqueue({ sequence });
    const [first] = await fake.started(1);
    await tick();
    expect(fake.children).toHaveLength(1); // the second waits for the first to exit
    expect(first).toMatchObject({ command: HOOK.node, args: [HOOK.hook, "fleet-event", "--agent", "pi"], payload: { sequence: 1 } });
    expect(first?.options).toMatchObject({ shell: false, detached: true, stdio: ["pipe", "ignore", "ignore"], env: { PATH: "/usr/bin" } });
    first?.exit();
    (await fake.started(2))[1]?.exit();
    (await fake.started(3))[2]?.exit();
    expect(await sender.flush(10_000)).toBe(true);
    expect(fake.children.map((child) => child.payload?.sequence)).toEqual([1, 2, 3]);
    expect(fake.maxRunning).toBe(1);
    expect(sender.stats).toMatchObject({ enqueued: 3, sent: 3, dropped: 0 });
  });

  it("hands each payload to the hook shim where the package has one: /bin/sh, the shim, then the hook's Node", async () => {
    const shim = "/opt/tongs-agents/bin/tongs-agents-hook.sh";
    const { fake, sender } = setup({ command: () => ({ ...HOOK, shim }) });
    sender.enqueue({ sequence: 1 });
    const [first] = await fake.started(1);
    expect(first).toMatchObject({ command: "/bin/sh", args: [shim, HOOK.node, "fleet-event", "--agent", "pi"], payload: { sequence: 1 } });
    expect(first?.options).toMatchObject({ shell: false, detached: true, stdio: ["pipe", "ignore", "ignore"] });
    first?.exit();
    expect(await sender.flush(10_000)).toBe(true);
  });

  it("drops the oldest intermediate events when the queue is full, keeping session boundaries and the newest", async () => {
    const { fake, sender } = setup({ maxQueue: 4 });
    sender.enqueue({ n: "in-flight" });
    await fake.started(1); // occupies the single slot; the rest queue behind it
    sender.enqueue({ n: "start" }, { pinned: true });
    for (const n of ["a", "b", "c", "d", "e"]) sender.enqueue({ n });
    sender.enqueue({ n: "shutdown" }, { pinned: true });
    expect(sender.pending).toBe(4);
    expect(sender.stats.dropped).toBe(3);
    fake.children[0]?.exit();
    for (let index = 1; index <= 4; index++) (await fake.started(index + 1))[index]?.exit();
    expect(await sender.flush(10_000)).toBe(true);
    expect(fake.children.map((child) => child.payload?.n)).toEqual(["in-flight", "start", "d", "e", "shutdown"]);
  });

  it("stays bounded even when only pinned events are queued", async () => {
    const { fake, sender } = setup({ maxQueue: 2 });
    sender.enqueue({ n: 0 });
    await fake.started(1);
    for (const n of [1, 2, 3]) sender.enqueue({ n }, { pinned: true });
    expect(sender.pending).toBe(2);
  });

  it("kills a hook process that outlives the per-send bound and moves on", async () => {
    const { fake, sender } = setup({ sendTimeoutMs: 30 });
    sender.enqueue({ n: 1 });
    sender.enqueue({ n: 2 });
    const [stuck] = await fake.started(1);
    const [, next] = await fake.started(2); // started only after the first was given up on
    expect(stuck?.killedWith).toBe("SIGKILL");
    next?.exit();
    expect(await sender.flush(10_000)).toBe(true);
    expect(sender.stats).toMatchObject({ timedOut: 1, sent: 1 });
  });

  it("carries on after a spawn error event or a throwing spawn", async () => {
    const fake = fakeSpawn({ autoExit: true });
    let calls = 0;
    const sender = createSender({
      command: () => HOOK,
      env: {},
      spawn: (command, args, options) => {
        calls += 1;
        if (calls === 1) throw new Error("EAGAIN");
        const child = fake.spawn(command, args, options);
        if (calls === 2) setImmediate(() => fake.children.at(-1)?.fail());
        return child;
      },
    });
    for (const n of [1, 2, 3]) sender.enqueue({ n });
    expect(await sender.flush(10_000)).toBe(true);
    expect(sender.stats).toMatchObject({ failed: 2, sent: 1 });
    expect(fake.children.at(-1)?.payload).toEqual({ n: 3 });
  });

  it("skips delivery, without spawning, while no hook is found", async () => {
    const { fake, sender } = setup({ command: () => undefined });
    sender.enqueue({ n: 1 });
    expect(await sender.flush(10_000)).toBe(true);
    expect(fake.children).toHaveLength(0);
    expect(sender.stats.skipped).toBe(1);
  });

  it("flush gives up after its bound while a hook is still running, and resolves at once when idle", async () => {
    const { fake, sender } = setup({ sendTimeoutMs: 60_000 });
    expect(await sender.flush(10)).toBe(true);
    sender.enqueue({ n: 1 });
    await fake.started(1);
    expect(await sender.flush(20)).toBe(false);
    fake.children[0]?.exit();
    expect(await sender.flush(10_000)).toBe(true);
  });
});
