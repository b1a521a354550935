import { afterEach, describe, expect, it } from "vitest";
import { FakeBus } from "../../test/fake-bus.ts";
import { fakeProcessSource } from "../../test/fake-processes.ts";
import { testWorld } from "../../test/notify-world.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import type { RunResult, Runner } from "../core/exec.ts";
import type { CliContext } from "./context.ts";
import { checkNotifications, formatNotifyCheck } from "./notify.ts";
import { runCli } from "./run.ts";
import { chmodSync, readFileSync, statSync } from "node:fs";
import { muteState, parseDuration } from "../notify/mute.ts";
import { webhooksPath } from "../notify/webhooks.ts";

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
      ["webhook", false],
      ["bell", true],
    ]);
    expect(check.test).toBeUndefined();
    expect(bus.notified).toEqual([]);
    const text = formatNotifyCheck(check, Date.now());
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

describe("notify mute, unmute and webhooks", () => {
  const cli = async (context: CliContext, ...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, context, {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      color: false,
      columns: 100,
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  const NOW = Date.parse("2026-12-07T12:00:00.000Z");

  it("mute for a while, or until unmute; notify shows it; a wrong duration is a usage error", async () => {
    const context = { ...contextWith({}), now: () => NOW };
    expect(await cli(context, "notify", "mute", "1h30m")).toMatchObject({
      code: 0,
      out: "notifications: muted until 2026-12-07T13:30:00.000Z (1h 30m left)",
    });
    expect(muteState(context.stateDir, NOW + 89 * 60_000).muted).toBe(true);
    expect(muteState(context.stateDir, NOW + 90 * 60_000).muted).toBe(false);
    expect((await cli(context, "notify")).out).toMatch(/^notifications: muted until 2026-12-07T13:30:00\.000Z \(1h 30m left\)/);
    expect(await cli(context, "notify", "mute")).toMatchObject({ code: 0, out: "notifications: muted until `tongs-agents notify unmute`" });
    expect(await cli(context, "notify", "mute", "soon")).toMatchObject({
      code: 2,
      err: 'tongs-agents: not a duration: "soon" (use e.g. 90s, 30m, 2h, 1h30m, 1d; at most 30d)',
    });
    expect(await cli(context, "notify", "unmute")).toMatchObject({ code: 0, out: "notifications: on (not muted)" });
    expect(muteState(context.stateDir, NOW).muted).toBe(false);
    expect((await cli(context, "notify")).out).toMatch(/^notifications: on /);
  });

  it.each([
    ["90s", 90_000],
    ["30m", 1_800_000],
    ["2h", 7_200_000],
    ["1h30m", 5_400_000],
    ["1d", 86_400_000],
    ["45", 2_700_000],
    ["31d", undefined],
    ["0m", undefined],
    ["1.5h", undefined],
    ["h", undefined],
  ])("parseDuration(%s) = %s", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it("webhook add keeps the URL in a 0600 file and never prints it whole; remove takes it out", async () => {
    const context = contextWith({});
    const added = await cli(context, "notify", "webhook", "add", "https://ntfy.sh/s3cret-topic-42");
    expect(added).toMatchObject({ code: 0, out: "added webhook 1. https://ntfy.sh/… (ntfy); `tongs-agents notify --test` sends a test" });
    const plain = await cli(context, "notify", "webhook", "add", "https://chat.example.org/hooks/T0K3N?x=1");
    expect(plain.out).toBe("added webhook 2. https://chat.example.org/…; `tongs-agents notify --test` sends a test");
    const path = webhooksPath(context.env);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      webhooks: [
        { url: "https://ntfy.sh/s3cret-topic-42", ntfy: true },
        { url: "https://chat.example.org/hooks/T0K3N?x=1", ntfy: false },
      ],
    });
    const shown = await cli(context, "notify");
    expect(shown.out).toContain("  1. https://ntfy.sh/… (ntfy)\n  2. https://chat.example.org/…");
    const json = await cli(context, "notify", "--json");
    for (const text of [shown.out, json.out, added.out, plain.out]) {
      expect(text).not.toContain("s3cret");
      expect(text).not.toContain("T0K3N");
    }
    // Mistakes are told without the URL.
    expect(await cli(context, "notify", "webhook", "add", "https://ntfy.sh/s3cret-topic-42")).toMatchObject({
      code: 1,
      err: "tongs-agents: webhook not added: https://ntfy.sh/… is already there",
    });
    expect(await cli(context, "notify", "webhook", "add", "ftp://x/s3cret")).toMatchObject({
      code: 1,
      err: "tongs-agents: webhook not added: not an http or https URL (ftp:)",
    });
    expect(await cli(context, "notify", "webhook", "add", "https://chat.example.org/x", "--click", "https://x")).toMatchObject({ code: 2 });
    expect(await cli(context, "notify", "webhook", "remove", "1")).toMatchObject({
      code: 0,
      out: "removed webhook https://ntfy.sh/… (ntfy)",
    });
    expect(await cli(context, "notify", "webhook", "remove", "5")).toMatchObject({
      code: 1,
      err: "tongs-agents: there is no webhook 5 (1 configured)",
    });
    expect(JSON.parse(readFileSync(path, "utf8")).webhooks).toHaveLength(1);
    chmodSync(path, 0o644);
    expect((await cli(context, "notify")).out).toContain("has mode 0644, open to others: chmod 600 it");
  });
});
