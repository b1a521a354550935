import { afterEach, describe, expect, it } from "vitest";
import type { RunOptions, RunResult, Runner } from "../../src/core/exec.ts";
import { failed, type FocusContext } from "../contract.ts";
import { FakeKitty, type FakeKittyOptions } from "../../test/fake-kitty.ts";
import { fakeX, type FakeXOptions } from "../../test/fake-x.ts";
import { frame } from "./rc.ts";
import { kittyBackend, parseKittyEnv } from "./backend.ts";

// Mocked: a stateful fake kitty on a real unix socket (test/fake-kitty.ts) and fake X tools (test/fake-x.ts). The
// live suite (test/live/kitty-focus.test.ts) proves the same behaviour against kitty 0.26.5 under Xvfb.

const kitties: FakeKitty[] = [];
afterEach(async () => {
  for (const kitty of kitties.splice(0)) await kitty.close();
});

async function kittyLab(options: FakeKittyOptions = {}, x: FakeXOptions = {}, cli: "kitten" | "kitty" | "none" = "kitty") {
  const kitty = await new FakeKitty(options).listen();
  kitties.push(kitty);
  const xTools = fakeX(x, (xid) => kitty.activateX(xid));
  const calls: { file: string; args: readonly string[] }[] = [];
  // kitten/kitty @ answer from the same fake kitty, as the real CLI talks to the same kitty.
  const run: Runner = async (file, args, options?: RunOptions): Promise<RunResult> => {
    calls.push({ file, args });
    if (file === "kitten" || file === "kitty") {
      if (cli !== file) return { ok: false, code: undefined, stdout: "", stderr: "", failure: "not-found" };
      return kitty.cli(args);
    }
    return xTools.run(file, args, options);
  };
  const context: FocusContext = {
    run,
    env: { PATH: "/usr/bin" },
    client: undefined,
    platform: "linux",
    environOf: async () => undefined,
    raiseOuter: async () => failed("not used"),
  };
  const target = (window: number) => ({ windowId: window, listenOn: kitty.listenOn, display: ":5" });
  const os = () => {
    const made = kitty.osWindow();
    xTools.windows.add(made.xid);
    xTools.focused = made.xid;
    return made;
  };
  return { kitty, x: xTools, calls, context, target, os };
}

describe("detect", () => {
  it.each([
    [
      { KITTY_WINDOW_ID: "3", KITTY_LISTEN_ON: "unix:/tmp/kitty-42", DISPLAY: ":0" },
      { windowId: 3, listenOn: "unix:/tmp/kitty-42", display: ":0" },
    ],
    // Remote control off: still kitty's, so focus can say what to enable.
    [
      { KITTY_WINDOW_ID: "3", WINDOWID: "2097164" },
      { windowId: 3, listenOn: undefined, display: undefined },
    ],
    [{ KITTY_WINDOW_ID: "x3", KITTY_LISTEN_ON: "unix:/tmp/kitty-42" }, undefined],
    [{ WINDOWID: "2097164", DISPLAY: ":0" }, undefined],
  ])("%j", (env, expected) => {
    expect(kittyBackend.detect({ env })).toEqual(expected);
    expect(parseKittyEnv(env)).toEqual(expected);
  });
});

describe("kittyBackend.focus", () => {
  it("sends ls, focus-window --match id:N, ls over the socket, and verifies the window is the one focused", async () => {
    const lab = await kittyLab();
    const first = lab.os();
    const tab = lab.kitty.tab(first.os);
    const split = lab.kitty.split(tab.tab);
    lab.os();
    const outcome = await kittyBackend.focus(lab.target(tab.window), lab.context);
    expect(lab.kitty.frames).toEqual([frame("ls"), frame("focus-window", { match: `id:${tab.window}` }), frame("ls")]);
    expect(outcome).toEqual({
      located: true,
      target: `kitty window ${tab.window} (${lab.kitty.listenOn}), tab ${tab.tab} of OS window ${first.os}`,
      selection: {
        attempted: true,
        succeeded: true,
        detail: `kitty window ${tab.window} is the active window of tab ${tab.tab}, the active tab of OS window ${first.os}`,
      },
      activation: {
        attempted: true,
        succeeded: true,
        detail: `OS window ${first.os} is focused and kitty window ${tab.window} is the one focused window`,
      },
    });
    expect(lab.calls).toEqual([]); // no CLI, no X tools when kitty did it all
    expect(split).not.toBe(tab.window);
  });

  it("never puts what ls returned (every window's environment) into the outcome", async () => {
    const lab = await kittyLab();
    const { window } = lab.os();
    const outcome = await kittyBackend.focus(lab.target(window), lab.context);
    expect(JSON.stringify(outcome)).not.toContain("must-never-be-logged");
    expect(JSON.stringify(outcome)).not.toContain("KITTY_WINDOW_ID");
  });

  it("restores a minimized OS window through X11 (focus-window does not), on the captured DISPLAY", async () => {
    const lab = await kittyLab();
    const minimized = lab.os();
    lab.os();
    lab.kitty.minimize(minimized.os);
    const outcome = await kittyBackend.focus(lab.target(minimized.window), lab.context);
    expect(lab.calls.filter((call) => call.file === "xdotool")).toEqual([
      { file: "xdotool", args: ["windowactivate", "--sync", String(minimized.xid)] },
      { file: "xdotool", args: ["getactivewindow"] },
    ]);
    expect(lab.x.calls.every((call) => call.display === ":5")).toBe(true);
    expect(outcome).toMatchObject({
      selection: { succeeded: true },
      activation: {
        succeeded: true,
        detail: expect.stringContaining(`xdotool windowactivate 0x${minimized.xid.toString(16)}; it is the active window`),
      },
    });
  });

  it("selection only (partial): the OS window stays minimized when no X tool can restore it", async () => {
    const lab = await kittyLab({}, { xdotool: false, wmctrl: false });
    const minimized = lab.os();
    const other = lab.os();
    lab.kitty.minimize(minimized.os);
    const outcome = await kittyBackend.focus(lab.target(minimized.window), lab.context);
    expect(outcome).toMatchObject({ located: true, selection: { succeeded: true }, activation: { attempted: true, succeeded: false } });
    expect(outcome.activation.detail).toContain(`OS window ${minimized.os} is not focused: kitty window ${other.window} is`);
    expect(outcome.activation.detail).toContain("neither xdotool nor wmctrl is installed (Debian/Ubuntu: apt install xdotool)");
  });

  it("activation only (partial): an overlay over the target (a kitten, a prompt) is what the focused OS window shows", async () => {
    const lab = await kittyLab();
    const target = lab.os();
    const overlay = lab.kitty.overlay(target.window);
    lab.os();
    const outcome = await kittyBackend.focus(lab.target(target.window), lab.context);
    expect(outcome).toMatchObject({
      selection: { succeeded: false },
      activation: { succeeded: true, detail: `OS window ${target.os} is focused (it shows kitty window ${overlay}, not ${target.window})` },
    });
  });

  it("reads newer kitty's is_active flags the same way", async () => {
    const lab = await kittyLab({ shape: "newer" });
    const first = lab.os();
    lab.os();
    expect(await kittyBackend.focus(lab.target(first.window), lab.context)).toMatchObject({
      selection: { succeeded: true },
      activation: { succeeded: true },
    });
  });

  it("a window that no longer exists is not located, and nothing is focused", async () => {
    const lab = await kittyLab();
    const { os } = lab.os();
    const gone = lab.kitty.tab(os).window;
    lab.kitty.closeWindow(gone);
    const outcome = await kittyBackend.focus(lab.target(gone), lab.context);
    expect(outcome).toMatchObject({
      located: false,
      selection: { succeeded: false, detail: `kitty window ${gone} no longer exists in the kitty at ${lab.kitty.listenOn}` },
      activation: { attempted: false },
    });
    expect(lab.kitty.frames).toEqual([frame("ls")]);
  });
});

describe("unavailable: kitty cannot be reached", () => {
  it("no KITTY_LISTEN_ON (remote control off): says which kitty.conf lines to add, and tries nothing", async () => {
    const lab = await kittyLab();
    const outcome = await kittyBackend.focus({ windowId: 1, listenOn: undefined, display: ":5" }, lab.context);
    expect(outcome.unavailable).toMatch(
      /no KITTY_LISTEN_ON.*tried: nothing to connect to.*`allow_remote_control socket-only` \(or `yes`\) and `listen_on unix:\/tmp\/kitty`/,
    );
    expect(lab.calls).toEqual([]);
  });

  it("the socket is gone: unavailable, no CLI (it would find the same dead socket)", async () => {
    const lab = await kittyLab();
    const outcome = await kittyBackend.focus({ windowId: 1, listenOn: `${lab.kitty.listenOn}-gone`, display: ":5" }, lab.context);
    expect(outcome.unavailable).toMatch(
      /remote-control socket unix:.*-gone does not answer \(ENOENT.*tried: ls over socket\. To focus kitty windows, add `allow_remote_control/,
    );
    expect(lab.calls).toEqual([]);
  });

  it("kitty refuses remote control: the CLI is tried once (it could send a password), then unavailable", async () => {
    const lab = await kittyLab({ refuse: "Remote control is disabled. Add allow_remote_control to your kitty.conf" }, {}, "kitty");
    const { window } = lab.os();
    const outcome = await kittyBackend.focus(lab.target(window), lab.context);
    expect(lab.calls).toEqual([
      { file: "kitten", args: ["@", "--to", lab.kitty.listenOn, "ls"] },
      { file: "kitty", args: ["@", "--to", lab.kitty.listenOn, "ls"] },
    ]);
    expect(outcome.unavailable).toMatch(
      /kitty refuses remote control \(Remote control is disabled.*\); tried: ls over kitty @ \(the socket said: Remote control is disabled/,
    );
  });
});

describe("falling back to the CLI", () => {
  it("a kitty older than this client's protocol version: kitten/kitty @ do the whole focus", async () => {
    const lab = await kittyLab({ version: [0, 25, 2] }, {}, "kitty");
    const first = lab.os();
    lab.os();
    const outcome = await kittyBackend.focus(lab.target(first.window), lab.context);
    expect(lab.kitty.frames).toEqual([frame("ls")]);
    expect(lab.calls.slice(0, 4)).toEqual([
      { file: "kitten", args: ["@", "--to", lab.kitty.listenOn, "ls"] },
      { file: "kitty", args: ["@", "--to", lab.kitty.listenOn, "ls"] },
      { file: "kitty", args: ["@", "--to", lab.kitty.listenOn, "focus-window", "--match", `id:${first.window}`] },
      { file: "kitty", args: ["@", "--to", lab.kitty.listenOn, "ls"] },
    ]);
    expect(outcome).toMatchObject({
      selection: {
        succeeded: true,
        detail: expect.stringContaining(
          "(via kitty @ (the socket said: The kitty client you are using to send remote commands is newer than this kitty instance.",
        ),
      },
      activation: { succeeded: true },
    });
  });

  it("no reply on the socket: kitten @ is used when it exists", async () => {
    const lab = await kittyLab({ silent: true }, {}, "kitten");
    const first = lab.os();
    lab.os();
    const outcome = await kittyBackend.focus(lab.target(first.window), lab.context);
    expect(lab.calls.map((call) => call.file)).not.toContain("kitty");
    expect(lab.calls[1]).toEqual({
      file: "kitten",
      args: ["@", "--to", lab.kitty.listenOn, "focus-window", "--match", `id:${first.window}`],
    });
    expect(outcome).toMatchObject({ selection: { succeeded: true }, activation: { succeeded: true } });
  });

  it("an address this client does not speak goes straight to the CLI", async () => {
    const lab = await kittyLab({}, {}, "kitten");
    const outcome = await kittyBackend.focus({ windowId: 1, listenOn: "fd:3", display: ":5" }, lab.context);
    expect(lab.calls[0]).toEqual({ file: "kitten", args: ["@", "--to", "fd:3", "ls"] });
    expect(outcome.located).toBe(false);
  });

  it("no reply and no CLI: failed, saying both", async () => {
    const lab = await kittyLab({ silent: true }, {}, "none");
    const { window } = lab.os();
    const outcome = await kittyBackend.focus(lab.target(window), lab.context);
    expect(outcome).toMatchObject({
      located: false,
      selection: { succeeded: false, detail: "kitty ls: no reply within 2000 ms; CLI fallback: neither kitten nor kitty is on PATH" },
    });
    expect(outcome.unavailable).toBeUndefined();
  });
});

describe("kittyBackend.raise (a tmux client in a kitty window)", () => {
  it("focuses the client's kitty window and says so", async () => {
    const lab = await kittyLab();
    const client = lab.os();
    lab.os();
    const raised = await kittyBackend.raise(
      { KITTY_WINDOW_ID: String(client.window), KITTY_LISTEN_ON: lab.kitty.listenOn, DISPLAY: ":5", TERM: "xterm-kitty" },
      lab.context,
    );
    expect(raised).toMatchObject({
      attempted: true,
      succeeded: true,
      detail: expect.stringContaining(`focused kitty window ${client.window}`),
    });
  });

  it("is not kitty's without KITTY_WINDOW_ID, and fails with the fix when remote control is off", async () => {
    const lab = await kittyLab();
    expect(await kittyBackend.raise({ WINDOWID: "123", DISPLAY: ":5" }, lab.context)).toBeUndefined();
    expect(await kittyBackend.raise({ KITTY_WINDOW_ID: "4" }, lab.context)).toMatchObject({
      succeeded: false,
      detail: expect.stringContaining("allow_remote_control"),
    });
  });
});
