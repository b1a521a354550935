import { describe, expect, it } from "vitest";
import type { RunOptions, RunResult, Runner } from "../../src/core/exec.ts";
import type { FocusContext } from "../contract.ts";
import { FRONTMOST_PROCESS, RAISE_PROCESS } from "../applescript/osascript.ts";
import { parseWeztermEnv, weztermBackend } from "./backend.ts";

const SOCK = "/run/user/1000/wezterm/gui-sock-4242";
const ok = (stdout = ""): RunResult => ({ ok: true, code: 0, stdout, stderr: "" });
const err = (stderr: string, code = 1): RunResult => ({ ok: false, code, stdout: "", stderr });
const notFound: RunResult = { ok: false, code: undefined, stdout: "", stderr: "", failure: "not-found" };

const pane = (pane_id: number, window_id: number, tab_id: number, workspace = "default") => ({
  window_id,
  tab_id,
  pane_id,
  workspace,
  title: "zsh",
  cwd: "file:///home/u",
  is_active: true,
  is_zoomed: false,
  tty_name: "/dev/pts/3",
});
const LIST = JSON.stringify([pane(0, 0, 0), pane(3, 0, 1), pane(5, 1, 2)]);
const client = (pid: number, focused: number | null, idleSecs = 1) => ({
  username: "u",
  hostname: "h",
  pid,
  connection_elapsed: { secs: 60, nanos: 0 },
  idle_time: { secs: idleSecs, nanos: 0 },
  workspace: "default",
  focused_pane_id: focused,
});
const clients = (...rows: object[]) => ok(JSON.stringify(rows));

type Answer = RunResult | ((args: readonly string[]) => RunResult);
/** A recording runner: answers `wezterm cli --no-auto-start <sub>`, `xdotool <sub>`, `osascript` by script name. */
function fakeRun(answers: Record<string, Answer>) {
  const calls: { file: string; args: string[]; env: NodeJS.ProcessEnv | undefined }[] = [];
  const run: Runner = async (file, args, options?: RunOptions) => {
    calls.push({ file, args: [...args], env: options?.env });
    const key =
      file === "wezterm"
        ? (args[2] as string)
        : file === "xdotool"
          ? `xdotool ${args[0]}`
          : `osascript ${/^-- tongs-agents (\S+)/.exec(args[1] ?? "")?.[1]}`;
    const answer = answers[key] ?? ok();
    return typeof answer === "function" ? answer(args) : answer;
  };
  return { run, calls, argv: () => calls.map((call) => [call.file, ...call.args]) };
}

const happy = {
  list: ok(LIST),
  "list-clients": clients(client(4242, 3), client(777, null, 0)),
  "xdotool search": ok("41943043"),
  "xdotool getactivewindow": ok("41943043"),
};

function context(run: Runner, extra: Partial<FocusContext> = {}): FocusContext {
  return {
    run,
    env: { DISPLAY: ":0", PATH: "/usr/bin" },
    client: undefined,
    platform: "linux",
    environOf: async () => undefined,
    raiseOuter: async () => ({ attempted: false, succeeded: false, detail: "" }),
    ...extra,
  };
}

const target = { pane: "3", socket: SOCK };

describe("parseWeztermEnv / detect", () => {
  it.each([
    ["pane and socket", { WEZTERM_PANE: "3", WEZTERM_UNIX_SOCKET: SOCK }, { pane: "3", socket: SOCK }],
    ["pane only: the default instance", { WEZTERM_PANE: "12" }, { pane: "12", socket: undefined }],
    ["a relative socket is not trusted", { WEZTERM_PANE: "1", WEZTERM_UNIX_SOCKET: "gui-sock-1" }, { pane: "1", socket: undefined }],
    ["no pane", { WEZTERM_UNIX_SOCKET: SOCK, TERM_PROGRAM: "WezTerm" }, undefined],
    ["a pane that is not a number", { WEZTERM_PANE: "3 --help" }, undefined],
  ] as const)("%s", (_name, env, expected) => {
    expect(parseWeztermEnv(env)).toEqual(expected);
    expect(weztermBackend.detect({ env: { ...env } })).toEqual(expected);
  });
});

describe("weztermBackend.focus", () => {
  it("lists, activates the pane, verifies the GUI's focused pane, then raises the GUI's X11 window", async () => {
    const fake = fakeRun(happy);
    const outcome = await weztermBackend.focus(target, context(fake.run));
    expect(fake.argv()).toEqual([
      ["wezterm", "cli", "--no-auto-start", "list", "--format", "json"],
      ["wezterm", "cli", "--no-auto-start", "activate-pane", "--pane-id", "3"],
      ["wezterm", "cli", "--no-auto-start", "list-clients", "--format", "json"],
      ["xdotool", "search", "--pid", "4242"],
      ["xdotool", "windowactivate", "--sync", "41943043"],
      ["xdotool", "getactivewindow"],
    ]);
    // The captured socket goes in the environment of every wezterm call, on top of the caller's environment.
    for (const call of fake.calls.filter((entry) => entry.file === "wezterm"))
      expect(call.env).toEqual({ DISPLAY: ":0", PATH: "/usr/bin", WEZTERM_UNIX_SOCKET: SOCK });
    expect(outcome).toEqual({
      located: true,
      target: `WezTerm pane 3 (window 0, tab 1; ${SOCK})`,
      selection: { attempted: true, succeeded: true, detail: "pane 3 is the focused pane of the WezTerm GUI (pid 4242)" },
      activation: { attempted: true, succeeded: true, detail: "raised X11 window 41943043 of WezTerm (pid 4242)" },
    });
  });

  it("without a captured socket, the caller's environment is passed unchanged", async () => {
    const fake = fakeRun(happy);
    await weztermBackend.focus({ pane: "3", socket: undefined }, context(fake.run));
    expect(fake.calls[0]?.env).toEqual({ DISPLAY: ":0", PATH: "/usr/bin" });
  });

  it("on macOS, raises the GUI process through System Events and checks it is in front", async () => {
    const fake = fakeRun({ ...happy, list: ok(JSON.stringify([pane(3, 0, 1)])), "osascript frontmost-process": ok("4242") });
    const outcome = await weztermBackend.focus(target, context(fake.run, { platform: "darwin" }));
    expect(fake.argv().slice(3)).toEqual([
      ["osascript", "-e", RAISE_PROCESS, "4242"],
      ["osascript", "-e", FRONTMOST_PROCESS],
    ]);
    expect(outcome.activation).toEqual({ attempted: true, succeeded: true, detail: "brought WezTerm (pid 4242) to the front" });
  });

  it.each([
    ["another window stays in front", { "osascript frontmost-process": ok("99") }, "process 99 is in front"],
    [
      "Automation denied for System Events (-1743)",
      { "osascript raise-process": err("12:80: execution error: Not authorized to send Apple events to System Events. (-1743)") },
      "Privacy & Security > Automation",
    ],
    [
      "several windows in the workspace: raising the app is not proof",
      { "osascript frontmost-process": ok("4242"), list: ok(LIST) },
      "it has 2 windows",
    ],
  ])("selection only on macOS: %s", async (_name, answers, detail) => {
    const fake = fakeRun({ ...happy, list: ok(JSON.stringify([pane(3, 0, 1)])), ...answers });
    const outcome = await weztermBackend.focus(target, context(fake.run, { platform: "darwin" }));
    expect(outcome).toMatchObject({
      selection: { succeeded: true },
      activation: { attempted: true, succeeded: false, detail: expect.stringContaining(detail) },
    });
  });

  it.each([
    ["several X11 windows", { "xdotool search": ok("1\n2") }, {}, "has 2 X11 windows"],
    ["no X11 window of the GUI", { "xdotool search": err("", 1) }, {}, "no X11 window belongs to WezTerm (pid 4242)"],
    [
      "no window manager",
      {
        "xdotool windowactivate": err(
          "Your windowmanager claims not to support _NET_ACTIVE_WINDOW, so the attempt to activate the window was aborted.\nxdo_activate_window on window:41943043 reported an error",
        ),
      },
      {},
      "_NET_ACTIVE_WINDOW",
    ],
    ["another window stays active", { "xdotool getactivewindow": ok("5") }, {}, "the active window is 5"],
    ["xdotool missing", { "xdotool search": notFound }, {}, "xdotool is not installed"],
    ["Wayland", {}, { env: { WAYLAND_DISPLAY: "wayland-0" } }, "wez/wezterm#7990"],
    ["no display at all", {}, { env: {} }, "no DISPLAY"],
  ] as const)("selection only on X11: %s", async (_name, answers, extra, detail) => {
    const outcome = await weztermBackend.focus(target, context(fakeRun({ ...happy, ...answers }).run, extra));
    expect(outcome).toMatchObject({
      located: true,
      selection: { succeeded: true },
      activation: { succeeded: false, detail: expect.stringContaining(detail) },
    });
  });

  it("never claims activation without selection: the GUI did not move its focus (wez/wezterm#5536), so nothing is raised", async () => {
    const fake = fakeRun({ ...happy, "list-clients": clients(client(4242, 5)) });
    const outcome = await weztermBackend.focus(target, context(fake.run));
    expect(fake.argv().map((argv) => argv[0])).not.toContain("xdotool");
    expect(outcome).toMatchObject({
      located: true,
      selection: {
        succeeded: false,
        detail:
          "after activate-pane, WezTerm's focused pane is 5, not 3 (activating a pane in another window is unreliable: wez/wezterm#5536)",
      },
      activation: { attempted: false },
    });
  });

  it("verifies with the most recently active GUI client showing the pane", async () => {
    const fake = fakeRun({ ...happy, "list-clients": clients(client(1111, 3, 90), client(2222, 3, 2), client(3333, 0, 0)) });
    const outcome = await weztermBackend.focus(target, context(fake.run));
    expect(fake.argv()[3]).toEqual(["xdotool", "search", "--pid", "2222"]);
    expect(outcome.selection.detail).toContain("pid 2222");
  });

  it("a pane that no longer exists (stale target): not located, nothing activated", async () => {
    const fake = fakeRun({ list: ok(JSON.stringify([pane(0, 0, 0)])) });
    const outcome = await weztermBackend.focus(target, context(fake.run));
    expect(fake.argv()).toHaveLength(1);
    expect(outcome).toMatchObject({
      located: false,
      selection: { succeeded: false, detail: `pane 3 no longer exists in the WezTerm instance at ${SOCK}` },
      activation: { attempted: false },
    });
    expect(outcome.unavailable).toBeUndefined();
  });

  it("a pane closed between list and activate-pane: the CLI's own error, cleaned of its log prefix", async () => {
    const outcome = await weztermBackend.focus(
      target,
      context(fakeRun({ ...happy, "activate-pane": err("22:14:03.120  ERROR  wezterm > pane 3 not found; terminating") }).run),
    );
    expect(outcome).toMatchObject({
      located: true,
      selection: { succeeded: false, detail: "wezterm cli failed: pane 3 not found" },
      activation: { attempted: false },
    });
  });

  it.each([
    ["the wezterm binary is missing", notFound, "the wezterm command is not on PATH"],
    [
      "the instance's socket is dead",
      err(
        `22:14:03.120  ERROR  wezterm > failed to connect to Socket("${SOCK}"): connecting to ${SOCK}: Connection refused (os error 111); terminating`,
      ),
      `the WezTerm instance at ${SOCK} is not running`,
    ],
  ])("unavailable: %s", async (_name, answer, detail) => {
    const outcome = await weztermBackend.focus(target, context(fakeRun({ list: answer }).run));
    expect(outcome).toMatchObject({ located: false, unavailable: expect.stringContaining(detail) });
  });
});

describe("weztermBackend.raise", () => {
  it("answers only for a WezTerm environment, and succeeds only when both operations did", async () => {
    expect(await weztermBackend.raise({ KITTY_WINDOW_ID: "1" }, context(fakeRun(happy).run))).toBeUndefined();
    const raised = await weztermBackend.raise({ WEZTERM_PANE: "3", WEZTERM_UNIX_SOCKET: SOCK }, context(fakeRun(happy).run));
    expect(raised).toEqual({
      attempted: true,
      succeeded: true,
      detail: "pane 3 is the focused pane of the WezTerm GUI (pid 4242); raised X11 window 41943043 of WezTerm (pid 4242)",
    });
    const notRaised = await weztermBackend.raise({ WEZTERM_PANE: "3" }, context(fakeRun({ ...happy, "xdotool search": ok("1\n2") }).run));
    expect(notRaised).toMatchObject({ attempted: true, succeeded: false });
  });
});
