import { afterEach, describe, expect, it } from "vitest";
import { FakeBus } from "../../test/fake-bus.ts";
import { fakeProcessSource } from "../../test/fake-processes.ts";
import { testWorld } from "../../test/notify-world.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import type { RunResult, Runner } from "../core/exec.ts";
import type { CliContext } from "./context.ts";
import { checkNotifications, formatNotifyCheck } from "./notify.ts";
import { runCli } from "./run.ts";

let sandbox: Sandbox | undefined;
let bus: FakeBus | undefined;
afterEach(async () => {
  await bus?.stop();
  sandbox?.cleanup();
});

function contextWith(env: NodeJS.ProcessEnv): CliContext {
  sandbox ??= makeSandbox();
  return {
    env: { ...sandbox.env, ...env },
    stateDir: sandbox.stateDir,
    cwd: sandbox.root,
    processes: fakeProcessSource([]),
    now: Date.now,
  };
}

/** tmux answering the survey for pane %3, one client showing it (the user's own). */
const tmux: Runner = async (file, args) =>
  ({
    ok: file === "tmux",
    code: 0,
    stderr: "",
    stdout: args.includes("list-panes")
      ? "server\t3.3a\noff\npane\t%3\t/dev/pts/13\t@1\t0\twork:1\nclient\t/dev/pts/3\tattached,focused\txterm-kitty\t0\t@1\t%3\t/dev/pts/13\t1"
      : "",
  }) satisfies RunResult;

describe("tongs-agents notify", () => {
  it("shows the settings in force and the channels found from this terminal", async () => {
    bus = await new FakeBus().start();
    const context = contextWith({ DBUS_SESSION_BUS_ADDRESS: bus.address, TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%3" });
    const { world } = testWorld({ env: context.env, run: tmux });
    const check = await checkNotifications(context, { test: false, world });
    expect(check.channels.map((channel) => [channel.channel, channel.available])).toEqual([
      ["desktop", true],
      ["terminal", true],
      ["tmux", true],
      ["bell", true],
    ]);
    expect(check.test).toBeUndefined();
    expect(bus.notified).toEqual([]);
    const text = formatNotifyCheck(check);
    expect(text).toContain("notifications: on");
    expect(text).toContain("idle     off");
    expect(text).toContain("desktop  found      fake-notifier 1.0 on the session bus, with actions");
    expect(text).toContain("terminal found      OSC 99 to client /dev/pts/3 (kitty) through pane %3");
  });

  it("--test sends one through each channel found, the tmux message to every client", async () => {
    bus = await new FakeBus().start();
    const context = contextWith({ DBUS_SESSION_BUS_ADDRESS: bus.address, TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%3" });
    const calls: string[][] = [];
    const recording: Runner = (file, args, options) => (calls.push([file, ...args]), tmux(file, args, options));
    const { world, writes } = testWorld({ env: context.env, run: recording });
    const check = await checkNotifications(context, { test: true, world });
    expect(check.test?.map((delivery) => [delivery.channel, delivery.outcome])).toEqual([
      ["desktop", "delivered"],
      ["terminal", "delivered"],
      ["tmux", "delivered"],
      ["bell", "delivered"],
    ]);
    expect(bus.notified.map((entry) => entry.body[3])).toEqual(["tongs-agents test notification"]);
    expect(writes.map((write) => write.path)).toEqual(["/dev/pts/13", "/dev/pts/13"]);
    expect(calls.filter((call) => call.includes("display-message") && call.includes("-c"))).toEqual([
      [
        "tmux",
        "-u",
        "-S",
        "/tmp/tmux-0/default",
        "display-message",
        "-c",
        "/dev/pts/3",
        "--",
        "tongs-agents: tongs-agents test notification: Sent through the tmux channel: notifications reach you here.",
      ],
    ]);
  });

  it("names a config file it could not use, and exits 1 when a test reached nothing", async () => {
    const context = contextWith({});
    const out: string[] = [];
    const code = await runCli(["notify", "--test", "--json"], context, {
      stdout: (text) => out.push(text),
      stderr: () => undefined,
      color: false,
      columns: 80,
    });
    const check = JSON.parse(out.join("\n")) as { config: { source: string }; channels: { available: boolean }[]; test: unknown[] };
    expect(check.config.source).toBe("defaults");
    expect(check.channels.every((channel) => !channel.available)).toBe(true);
    expect(check.test).toEqual([]);
    expect(code).toBe(1);
  });
});
