// MOCKED: WezTerm cannot run here. The real WezTerm backend and the real `tongs-agents focus` CLI run against stateful
// fakes of `wezterm cli` and `xdotool` (test/fakes/, modelled on WezTerm 20240203-110809-5046fc22 and xdotool 3.20160805
// from their source), put first on PATH. The tests assert the exact commands the fakes received and the fakes' state
// afterwards. Records are written by the real hook, run by a process named `claude` whose environment is a WezTerm pane's.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { weztermBackend } from "../backends/wezterm/backend.ts";
import { run as realRun, type Runner } from "../src/core/exec.ts";
import type { FocusContext } from "../backends/contract.ts";
import { installFakes, type Fakes } from "./fakes/fakes.ts";
import {
  FAKE_DISPLAY,
  GUI_PID,
  GUI_XID,
  OTHER_XID,
  osascriptWorld,
  weztermWorld,
  xdotoolWorld,
  type OsascriptState,
  type WeztermState,
  type XdotoolState,
} from "./fakes/worlds.ts";
import { runFocus, startFakeHarness } from "./processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

const SOCK = "/run/user/1000/wezterm/gui-sock-4242";

let sandbox: Sandbox;
let fakes: Fakes;
beforeEach(() => {
  sandbox = makeSandbox();
  fakes = installFakes(sandbox.root);
  fakes.set("wezterm", weztermWorld(SOCK));
  fakes.set("xdotool", xdotoolWorld());
  fakes.set("osascript", osascriptWorld());
});
afterEach(() => sandbox.cleanup());

/** The real runner, with the fakes first on PATH for calls that do not pass their own environment. */
function context(extra: Partial<FocusContext> = {}, env: NodeJS.ProcessEnv = { DISPLAY: FAKE_DISPLAY }): FocusContext {
  const base = fakes.env({ ...sandbox.env, ...env });
  const run: Runner = (file, args, options) => realRun(file, args, { ...options, env: options?.env ?? base });
  return {
    run,
    env: base,
    client: undefined,
    platform: "linux",
    environOf: async () => undefined,
    raiseOuter: async () => ({ attempted: false, succeeded: false, detail: "" }),
    ...extra,
  };
}

const wezterm = () => fakes.state<WeztermState>("wezterm").instances[SOCK];
const calls = () => fakes.calls().map((call) => [call.program, ...call.argv]);

describe("WezTerm backend against the fake wezterm cli and xdotool (mocked)", () => {
  it("mocked: selects a split pane in a background tab, verifies the GUI focus, raises the GUI's X11 window", async () => {
    const outcome = await weztermBackend.focus({ pane: "2", socket: SOCK }, context());
    expect(outcome).toMatchObject({
      located: true,
      target: `WezTerm pane 2 (window 0, tab 1; ${SOCK})`,
      selection: { succeeded: true },
      activation: { succeeded: true },
    });
    expect(calls()).toEqual([
      ["wezterm", "cli", "--no-auto-start", "list", "--format", "json"],
      ["wezterm", "cli", "--no-auto-start", "activate-pane", "--pane-id", "2"],
      ["wezterm", "cli", "--no-auto-start", "list-clients", "--format", "json"],
      ["xdotool", "search", "--pid", String(GUI_PID)],
      ["xdotool", "windowactivate", "--sync", String(GUI_XID)],
      ["xdotool", "getactivewindow"],
    ]);
    for (const call of fakes.calls().filter((entry) => entry.program === "wezterm")) expect(call.env.WEZTERM_UNIX_SOCKET).toBe(SOCK);
    const window = wezterm()?.windows[0];
    expect(window?.activeTab).toBe(1);
    expect(window?.tabs[1]?.activePane).toBe(1); // pane 2 is the second pane of tab 1
    expect(wezterm()?.clients[0]?.focusedPane).toBe(2);
    expect(fakes.state<XdotoolState>("xdotool").active).toBe(GUI_XID);
  });

  it("mocked: on macOS, brings the GUI process to the front through System Events (one window)", async () => {
    fakes.set("wezterm", weztermWorld(SOCK, { windows: 1 }));
    const outcome = await weztermBackend.focus({ pane: "1", socket: SOCK }, context({ platform: "darwin" }));
    expect(outcome).toMatchObject({
      selection: { succeeded: true },
      activation: { succeeded: true, detail: `brought WezTerm (pid ${GUI_PID}) to the front` },
    });
    expect(
      calls()
        .slice(3)
        .map((call) => [call[0], call[3]]),
    ).toEqual([
      ["osascript", String(GUI_PID)],
      ["osascript", undefined],
    ]);
    expect(fakes.state<OsascriptState>("osascript").frontmost).toBe("wezterm-gui");
  });

  it("mocked: activating a pane in another window leaves the GUI's focus (wez/wezterm#5536): failed, nothing raised", async () => {
    fakes.set("wezterm", weztermWorld(SOCK, { crossWindowBug: true }));
    const outcome = await weztermBackend.focus({ pane: "3", socket: SOCK }, context());
    expect(outcome).toMatchObject({
      located: true,
      selection: { succeeded: false, detail: expect.stringContaining("wez/wezterm#5536") },
      activation: { attempted: false },
    });
    expect(calls().map((call) => call[0])).not.toContain("xdotool");
    expect(fakes.state<XdotoolState>("xdotool").active).toBe(OTHER_XID);
  });

  it("mocked: no window manager: the pane is selected, the window cannot be raised (partial)", async () => {
    fakes.set("xdotool", xdotoolWorld({ wm: false }));
    const outcome = await weztermBackend.focus({ pane: "1", socket: SOCK }, context());
    expect(outcome).toMatchObject({
      selection: { succeeded: true },
      activation: { succeeded: false, detail: expect.stringContaining("_NET_ACTIVE_WINDOW") },
    });
    expect(wezterm()?.clients[0]?.focusedPane).toBe(1);
  });

  it("mocked: a pane id that no longer exists: not located, the GUI untouched", async () => {
    const outcome = await weztermBackend.focus({ pane: "99", socket: SOCK }, context());
    expect(outcome).toMatchObject({ located: false, selection: { detail: `pane 99 no longer exists in the WezTerm instance at ${SOCK}` } });
    expect(calls()).toHaveLength(1);
    expect(wezterm()?.clients[0]?.focusedPane).toBe(0);
  });

  it("mocked: a dead instance is unavailable, and no mux server is auto-started in its place", async () => {
    const world = weztermWorld(SOCK);
    (world.instances[SOCK] as { alive: boolean }).alive = false;
    fakes.set("wezterm", world);
    const outcome = await weztermBackend.focus({ pane: "1", socket: SOCK }, context());
    expect(outcome.unavailable).toMatch(new RegExp(`^the WezTerm instance at ${SOCK} is not running \\(failed to connect to Socket`));
    expect(fakes.state<WeztermState>("wezterm").autoStarted).toBe(0);
  });

  it("mocked: no wezterm on PATH is unavailable with what to do", async () => {
    const bare = installFakes(`${sandbox.root}/bare`, ["xdotool"]);
    const env = bare.env({ DISPLAY: FAKE_DISPLAY, PATH: "/nonexistent" });
    const run: Runner = (file, args, options) => realRun(file, args, { ...options, env: options?.env ?? env });
    const outcome = await weztermBackend.focus({ pane: "1", socket: SOCK }, { ...context(), run, env });
    expect(outcome.unavailable).toContain("the wezterm command is not on PATH");
  });
});

describe("tongs-agents focus on a WezTerm record written by the real hook (mocked WezTerm)", () => {
  /** A live `claude` process in a WezTerm pane's environment reports session-start; it stays alive (not stale). */
  async function recordIn(pane: string, sessionId: string): Promise<void> {
    const claude = await startFakeHarness("claude", sandbox, { WEZTERM_PANE: pane, WEZTERM_UNIX_SOCKET: SOCK, TERM_PROGRAM: "WezTerm" });
    harnesses.push(claude);
    expect((await claude.emit("session-start", "claude", { session_id: sessionId, cwd: sandbox.root })).code).toBe(0);
  }
  const harnesses: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.stop();
  });

  const focus = (query: string, env: NodeJS.ProcessEnv = {}) =>
    runFocus(query, fakes.env({ ...sandbox.env, DISPLAY: FAKE_DISPLAY, ...env }));

  it("mocked: complete (exit 0): the CLI passes the recorded socket, selects the pane and raises the window", async () => {
    await recordIn("3", "wez-session-3");
    const { code, result } = await focus("wez-session-3");
    expect(result).toMatchObject({ state: "complete", backend: "wezterm", target: `WezTerm pane 3 (window 1, tab 2; ${SOCK})` });
    expect(code).toBe(0);
    expect(
      fakes
        .calls()
        .filter((call) => call.program === "wezterm")
        .map((call) => call.env.WEZTERM_UNIX_SOCKET),
    ).toEqual([SOCK, SOCK, SOCK]);
    expect(wezterm()?.clients[0]?.focusedPane).toBe(3);
    expect(fakes.state<XdotoolState>("xdotool").active).toBe(GUI_XID);
  });

  it("mocked: partial (exit 5) when the window cannot be raised, failed (exit 6) for a closed pane, unavailable (exit 7) for a dead instance", async () => {
    await recordIn("1", "wez-one");
    await recordIn("42", "wez-gone");
    fakes.set("xdotool", xdotoolWorld({ guiWindows: 2 }));
    const partial = await focus("wez-one");
    expect(partial).toMatchObject({
      code: 5,
      result: { state: "partial", activation: { detail: expect.stringContaining("has 2 X11 windows") } },
    });
    const gone = await focus("wez-gone");
    expect(gone).toMatchObject({ code: 6, result: { state: "failed", located: false } });
    const world = weztermWorld(SOCK);
    (world.instances[SOCK] as { alive: boolean }).alive = false;
    fakes.set("wezterm", world);
    const dead = await focus("wez-one");
    expect(dead).toMatchObject({ code: 7, result: { state: "unavailable", detail: expect.stringContaining("is not running") } });
  });
});
