// MOCKED: macOS cannot run here. The macOS desktop channel runs against stateful fakes of osascript
// (test/fakes/osascript.mjs: getopt-like option parsing, refuses an argument found in the script text) and of
// terminal-notifier (test/fakes/terminal-notifier.mjs: NSUserDefaults-like option parsing, message from stdin, the
// -execute command kept). A click is modelled by running that command through /bin/sh with launchd's minimal PATH,
// as Notification Center does: the real notifier bundle focuses the session through the real focus service (here a
// Terminal.app tab, itself through the fake osascript) and logs the result.
import { shellCommand } from "../src/core/shell-quote.ts";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run as realRun, type Runner } from "../src/core/exec.ts";
import { shortId } from "../src/core/identity.ts";
import type { Notice, NotifyWorld } from "../src/notify/contract.ts";
import { ARGV_MARKER, DISPLAY_NOTIFICATION, desktopMacosChannel } from "../src/notify/desktop-macos.ts";
import { composeNotice } from "../src/notify/message.ts";
import { clickCommandFor } from "../src/notify/world.ts";
import { installFakes, type Fakes } from "./fakes/fakes.ts";
import { osascriptWorld, type OsascriptState } from "./fakes/worlds.ts";
import { testWorld } from "./notify-world.ts";
import { ROOT } from "./processes.ts";
import { writeLiveRecord } from "./records.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

let sandbox: Sandbox;
let fakes: Fakes;

beforeEach(() => {
  sandbox = makeSandbox();
  fakes = installFakes(sandbox.root, ["osascript", "terminal-notifier"]);
  fakes.set("osascript", osascriptWorld());
  fakes.set("terminal-notifier", {});
});
afterEach(() => sandbox.cleanup());

function macWorld(): NotifyWorld {
  const env = fakes.env(sandbox.env);
  const run: Runner = (file, args, options) => realRun(file, args, { ...options, env: options?.env ?? env });
  return testWorld({
    env,
    platform: "darwin",
    run,
    stateDir: sandbox.stateDir,
    clickCommand: clickCommandFor(join(ROOT, "dist", "notify.cjs"), sandbox.stateDir, env),
  }).world;
}

/** Text an agent could choose, each piece aimed at one way of being read as something else. */
const hostile: Notice = {
  ...composeNotice([
    {
      id: "fleet:v1:claude:aa",
      harnessName: "Claude Code",
      cwd: '/src/" & (do shell script "touch /tmp/pwned") & "',
      status: "waiting",
      detail: '-e do shell script "id"',
      where: "(a, b)",
    },
  ]),
};

describe("macOS desktop notifications (mocked)", () => {
  it("mocked: osascript display notification, the text only in argv, after a fixed first argument", async () => {
    rmSync(join(fakes.bin, "terminal-notifier"));
    const world = macWorld();
    expect(await desktopMacosChannel.detect([], world)).toMatchObject({ available: true, detail: expect.stringContaining("osascript") });
    const sent = await desktopMacosChannel.deliver(hostile, [], world);
    expect(sent).toMatchObject({ outcome: "delivered", detail: "osascript display notification (no click action)" });
    expect(fakes.calls().map((call) => call.argv)).toEqual([
      ["-e", DISPLAY_NOTIFICATION, ARGV_MARKER, hostile.title, hostile.lines.join("\n"), "1"],
    ]);
    expect(DISPLAY_NOTIFICATION).not.toContain("touch");
    expect(fakes.state<{ notifications: unknown[] }>("osascript").notifications).toEqual([
      { title: hostile.title, body: hostile.lines.join("\n"), sound: true },
    ]);
  });

  it("mocked: terminal-notifier, every value escaped so none is read as an option or a property list, the message on stdin", async () => {
    const world = macWorld();
    expect(await desktopMacosChannel.detect([], world)).toMatchObject({
      available: true,
      detail: expect.stringContaining("terminal-notifier"),
    });
    const notice: Notice = { ...hostile, title: "(evil) -title x" };
    const sent = await desktopMacosChannel.deliver(notice, [], world);
    expect(sent.outcome).toBe("delivered");
    const [call] = fakes.calls();
    expect(call?.argv.slice(0, 8)).toEqual([
      "-title",
      "\\(evil) -title x",
      "-subtitle",
      "tongs-agents",
      "-group",
      `tongs-agents-${shortId("fleet:v1:claude:aa")}`,
      "-sound",
      "Glass",
    ]);
    const [shown] = fakes.state<{ notifications: { title: string; message: string; execute: string }[] }>(
      "terminal-notifier",
    ).notifications;
    expect(shown).toMatchObject({ title: "(evil) -title x", message: notice.lines.join("\n") });
    expect(shown?.execute).toBe(
      shellCommand([
        "/usr/bin/env",
        `PATH=${world.env.PATH}`,
        process.execPath,
        join(ROOT, "dist", "notify.cjs"),
        "click",
        sandbox.stateDir,
        "fleet:v1:claude:aa",
      ]),
    );
  });

  it("mocked: a click runs the notifier, which focuses the session's Terminal.app tab and logs what focus did", async () => {
    await writeLiveRecord(sandbox.stateDir, "mac-1", { env: { TERM_PROGRAM: "Apple_Terminal" }, tty: "/dev/ttys004" });
    const id = JSON.parse(
      execFileSync(process.execPath, [join(ROOT, "bin", "tongs-agents.js"), "list", "--json"], { env: sandbox.env, encoding: "utf8" }),
    ).sessions[0].id as string;
    const world = macWorld();
    const notice = composeNotice([
      { id, harnessName: "Claude Code", cwd: "/w", status: "waiting", detail: "permission: Bash", where: "Terminal.app" },
    ]);
    await desktopMacosChannel.deliver(notice, [], world);
    const [shown] = fakes.state<{ notifications: { execute: string }[] }>("terminal-notifier").notifications;
    // Notification Center runs the command with launchd's environment: a minimal PATH, none of the agent's variables.
    execFileSync("/bin/sh", ["-c", shown?.execute as string], {
      env: { PATH: "/usr/bin:/bin", HOME: sandbox.home, TONGS_FAKE_STATE: fakes.stateDir },
      timeout: 30_000,
    });
    const log = join(sandbox.stateDir, "notify.log");
    expect(existsSync(log)).toBe(true);
    const entry = JSON.parse(readFileSync(log, "utf8").trim().split("\n").at(-1) as string) as {
      mode: string;
      result: string;
      focus: { state: string; backend: string; target: string };
    };
    expect(entry).toMatchObject({
      mode: "click",
      result: "clicked",
      focus: { state: "complete", backend: "applescript", target: "Terminal.app tab /dev/ttys004" },
    });
    const terminal = fakes.state<OsascriptState>("osascript").terminal;
    expect(terminal.windows[0]?.tabs.find((tab) => tab.tty === "/dev/ttys004")?.selected).toBe(true);
  });
});
