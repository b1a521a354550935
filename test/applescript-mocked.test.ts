// MOCKED: macOS cannot run here. The real AppleScript backend and the real `tongs-agents focus` CLI run against a
// stateful fake of osascript (test/fakes/osascript.mjs) that models Terminal.app windows/tabs with ttys, iTerm2
// windows/tabs/sessions with ids, System Events processes, the Automation permission (-1743) and refused activation.
// The fake cannot compile AppleScript: it recognises the backend's scripts by name, so the script text itself is only
// checked by the unit tests (backends/applescript.test.ts), never by a real osascript.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applescriptBackend } from "../backends/applescript/backend.ts";
import { ITERM_FOCUS, ITERM_VERIFY, TERMINAL_FOCUS, TERMINAL_VERIFY } from "../backends/applescript/scripts.ts";
import { run as realRun, type Runner } from "../src/core/exec.ts";
import type { FocusContext } from "../backends/contract.ts";
import { installFakes, type Fakes } from "./fakes/fakes.ts";
import { ITERM_IDS, osascriptWorld, type OsascriptState } from "./fakes/worlds.ts";
import { runFocus, startFakeHarness } from "./processes.ts";
import { writeLiveRecord } from "./records.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

let sandbox: Sandbox;
let fakes: Fakes;
beforeEach(() => {
  sandbox = makeSandbox();
  fakes = installFakes(sandbox.root, ["osascript"]);
  fakes.set("osascript", osascriptWorld());
});
afterEach(() => sandbox.cleanup());

function context(): FocusContext {
  const env = fakes.env(sandbox.env);
  const run: Runner = (file, args, options) => realRun(file, args, { ...options, env: options?.env ?? env });
  return {
    run,
    env,
    client: undefined,
    platform: "darwin",
    environOf: async () => undefined,
    raiseOuter: async () => ({ attempted: false, succeeded: false, detail: "" }),
  };
}

const world = () => fakes.state<OsascriptState>("osascript");
const update = (change: (state: OsascriptState) => void) => {
  const state = world();
  change(state);
  fakes.set("osascript", state);
};

describe("Terminal.app through the fake osascript (mocked)", () => {
  it("mocked: selects the tab with exactly that tty in a background window, brings the window to index 1, Terminal in front", async () => {
    const outcome = await applescriptBackend.focus({ app: "terminal", tty: "/dev/ttys004" }, context());
    expect(outcome).toMatchObject({ located: true, selection: { succeeded: true }, activation: { succeeded: true } });
    expect(fakes.calls().map((call) => call.argv)).toEqual([
      ["-e", TERMINAL_FOCUS, "/dev/ttys004"],
      ["-e", TERMINAL_VERIFY, "/dev/ttys004"],
    ]);
    const { terminal, frontmost } = world();
    expect(terminal.windows.map((window) => window.id)).toEqual([1002, 1001]);
    expect(terminal.windows[0]?.tabs).toEqual([
      { tty: "/dev/ttys007", selected: false },
      { tty: "/dev/ttys004", selected: true },
    ]);
    expect(terminal.windows[1]?.tabs.find((tab) => tab.tty === "/dev/ttys0041")?.selected).toBe(false); // the decoy
    expect(frontmost).toBe("Terminal");
  });

  it("mocked: macOS keeps another app in front: the tab is selected, activation failed (partial)", async () => {
    update((state) => (state.activationBlocked = true));
    const outcome = await applescriptBackend.focus({ app: "terminal", tty: "/dev/ttys004" }, context());
    expect(outcome).toMatchObject({
      selection: { succeeded: true },
      activation: { succeeded: false, detail: expect.stringContaining("did not come to the front") },
    });
    expect(world().frontmost).toBe("Finder");
  });

  it("mocked: Automation permission denied (-1743): unavailable with the System Settings hint, nothing changed", async () => {
    update((state) => (state.automation.terminal = "denied"));
    const before = world().terminal;
    const outcome = await applescriptBackend.focus({ app: "terminal", tty: "/dev/ttys004" }, context());
    expect(outcome.unavailable).toContain("System Settings > Privacy & Security > Automation");
    expect(world().terminal).toEqual(before);
  });

  it("mocked: a closed tab and a Terminal.app that is not running are stale targets (not located)", async () => {
    expect(await applescriptBackend.focus({ app: "terminal", tty: "/dev/ttys099" }, context())).toMatchObject({
      located: false,
      selection: { detail: expect.stringContaining("no longer exists") },
    });
    update((state) => (state.terminal.running = false));
    expect(await applescriptBackend.focus({ app: "terminal", tty: "/dev/ttys004" }, context())).toMatchObject({
      located: false,
      selection: { detail: expect.stringContaining("Terminal is not running") },
    });
  });
});

describe("iTerm2 through the fake osascript (mocked)", () => {
  it("mocked: selects a split session in a background tab of a background window, by its UUID", async () => {
    const outcome = await applescriptBackend.focus({ app: "iterm2", session: ITERM_IDS.d }, context());
    expect(outcome).toMatchObject({ located: true, selection: { succeeded: true }, activation: { succeeded: true } });
    expect(fakes.calls().map((call) => call.argv)).toEqual([
      ["-e", ITERM_FOCUS, ITERM_IDS.d],
      ["-e", ITERM_VERIFY, ITERM_IDS.d],
    ]);
    const { iterm2, frontmost } = world();
    expect(iterm2.windows[0]).toMatchObject({ id: "window-b", currentTab: 1, tabs: [{ currentSession: 0 }, { currentSession: 1 }] });
    expect(frontmost).toBe("iTerm2");
  });

  it("mocked: denied, closed session, not running", async () => {
    expect(await applescriptBackend.focus({ app: "iterm2", session: "00000000-0000-4000-8000-000000000000" }, context())).toMatchObject({
      located: false,
    });
    update((state) => (state.automation.iterm2 = "denied"));
    expect((await applescriptBackend.focus({ app: "iterm2", session: ITERM_IDS.b }, context())).unavailable).toContain(
      "control iTerm2 (error -1743)",
    );
    update((state) => ((state.automation.iterm2 = "granted"), (state.iterm2.running = false)));
    expect(await applescriptBackend.focus({ app: "iterm2", session: ITERM_IDS.b }, context())).toMatchObject({
      located: false,
      selection: { detail: expect.stringContaining("iTerm2 is not running") },
    });
  });

  it("mocked: raise(env) for a tmux client in an iTerm2 session", async () => {
    const raised = await applescriptBackend.raise({ ITERM_SESSION_ID: `w1t0p0:${ITERM_IDS.b}`, TERM_PROGRAM: "iTerm.app" }, context());
    expect(raised).toMatchObject({ attempted: true, succeeded: true });
    expect(world().iterm2.windows[0]?.id).toBe("window-b");
  });
});

describe("tongs-agents focus on macOS records (mocked osascript, real CLI)", () => {
  const harnesses: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.stop();
  });

  const focus = (query: string) => runFocus(query, fakes.env(sandbox.env));

  it("mocked: iTerm2, recorded by the real hook from ITERM_SESSION_ID: complete (exit 0)", async () => {
    const claude = await startFakeHarness("claude", sandbox, { ITERM_SESSION_ID: `w1t1p1:${ITERM_IDS.d}`, TERM_PROGRAM: "iTerm.app" });
    harnesses.push(claude);
    expect((await claude.emit("session-start", "claude", { session_id: "iterm-session", cwd: sandbox.root })).code).toBe(0);
    const { code, result } = await focus("iterm-session");
    expect(result).toMatchObject({ state: "complete", backend: "applescript", target: `iTerm2 session ${ITERM_IDS.d}` });
    expect(code).toBe(0);
    expect(fakes.calls().map((call) => call.argv.at(-1))).toEqual([ITERM_IDS.d, ITERM_IDS.d]);
  });

  it("mocked: Terminal.app by the recorded tty: complete; denied -1743: unavailable (exit 7); blocked activation: partial (exit 5)", async () => {
    await writeLiveRecord(sandbox.stateDir, "terminal-session", { env: { TERM_PROGRAM: "Apple_Terminal" }, tty: "/dev/ttys004" });
    const complete = await focus("terminal-session");
    expect(complete).toMatchObject({
      code: 0,
      result: { state: "complete", backend: "applescript", target: "Terminal.app tab /dev/ttys004" },
    });

    update((state) => ((state.frontmost = "Finder"), (state.activationBlocked = true)));
    expect(await focus("terminal-session")).toMatchObject({ code: 5, result: { state: "partial" } });

    update((state) => (state.automation.terminal = "denied"));
    const denied = await focus("terminal-session");
    expect(denied).toMatchObject({
      code: 7,
      result: { state: "unavailable", detail: expect.stringContaining("Privacy & Security > Automation") },
    });
  });
});
