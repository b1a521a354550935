// Live multiplexer, MOCKED outer terminal: real tmux / GNU screen clients whose own environment says they run in a
// WezTerm pane or an iTerm2 session. `tongs-agents focus` (the real CLI) selects the agent's pane or window live, finds
// the attached client process, reads its environment from /proc, and raises the outer terminal through
// raiseOuter -> the WezTerm or AppleScript backend, which talk to the stateful fakes (test/fakes/) first on PATH.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installFakes, type Fakes } from "../fakes/fakes.ts";
import {
  FAKE_DISPLAY,
  GUI_XID,
  ITERM_IDS,
  osascriptWorld,
  weztermWorld,
  xdotoolWorld,
  type OsascriptState,
  type WeztermState,
  type XdotoolState,
} from "../fakes/worlds.ts";
import { runFocus } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { ScreenLab, screenVersion } from "./screen-lab.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";

const SOCK = "/run/user/1000/wezterm/gui-sock-4242";
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

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

const focus = (query: string, env: NodeJS.ProcessEnv) => runFocus(query, fakes.env({ ...env, DISPLAY: FAKE_DISPLAY }));

describe("tmux (live) inside WezTerm / iTerm2 (mocked)", () => {
  let lab: TmuxLab;
  beforeEach(() => {
    lab = new TmuxLab(sandbox, "outer-term");
  });
  afterEach(() => lab.stop());

  /** An inner tmux client attached from an outer pane, with the outer terminal's variables in its environment. */
  async function attachWith(session: string, outerEnv: Record<string, string>): Promise<string> {
    const before = new Set(lab.clients().map((client) => client.tty));
    const assignments = Object.entries(outerEnv)
      .map(([key, value]) => `${key}=${quote(value)}`)
      .join(" ");
    lab.tmux(
      lab.outer,
      "new-session",
      "-d",
      "-s",
      `view-${session}`,
      "-x",
      "120",
      "-y",
      "40",
      `env -u TMUX ${assignments} tmux -S ${quote(lab.inner)} attach -t ${quote(session)}`,
    );
    let tty = "";
    await waitFor(
      () => (tty = lab.clients().find((client) => !before.has(client.tty))?.tty ?? "") !== "",
      `a client attached to ${session}`,
    );
    return tty;
  }

  it("tmux live, WezTerm mocked: the client shows the pane, then WezTerm shows the client's pane and its window is raised (complete)", async () => {
    const home = lab.newSession("home");
    const target = lab.newWindow("home");
    await lab.ready(home, target);
    const tty = await attachWith("home", { WEZTERM_PANE: "3", WEZTERM_UNIX_SOCKET: SOCK, TERM_PROGRAM: "WezTerm" });

    const { code, result } = await focus(target.sessionId, sandbox.env);
    expect(result).toMatchObject({ state: "complete", backend: "tmux", activation: { succeeded: true } });
    expect(result.activation.detail).toContain("pane 3 is the focused pane of the WezTerm GUI");
    expect(code).toBe(0);
    expect(lab.clients().find((client) => client.tty === tty)?.pane).toBe(target.pane);
    expect(fakes.state<WeztermState>("wezterm").instances[SOCK]?.clients[0]?.focusedPane).toBe(3);
    expect(fakes.state<XdotoolState>("xdotool").active).toBe(GUI_XID);
    expect(fakes.calls().find((call) => call.program === "wezterm")?.env.WEZTERM_UNIX_SOCKET).toBe(SOCK);
  });

  it("tmux live, iTerm2 mocked: the iTerm2 session of the client is selected and iTerm2 comes to the front (complete)", async () => {
    const home = lab.newSession("home");
    const target = lab.newWindow("home");
    await lab.ready(home, target);
    await attachWith("home", { ITERM_SESSION_ID: `w1t1p1:${ITERM_IDS.d}`, TERM_PROGRAM: "iTerm.app" });

    const { result } = await focus(target.sessionId, sandbox.env);
    expect(result).toMatchObject({
      state: "complete",
      activation: { detail: expect.stringContaining(`iTerm2 is in front showing the iTerm2 session ${ITERM_IDS.d}`) },
    });
    const world = fakes.state<OsascriptState>("osascript");
    expect(world.frontmost).toBe("iTerm2");
    expect(world.iterm2.windows[0]).toMatchObject({ id: "window-b", currentTab: 1, tabs: [{ currentSession: 0 }, { currentSession: 1 }] });
  });
});

describe("GNU screen (live) inside WezTerm (mocked)", () => {
  let lab: ScreenLab;
  beforeEach(() => {
    screenVersion();
    lab = new ScreenLab(sandbox, "outer-term");
  });
  afterEach(() => lab.stop());

  it("screen live, WezTerm mocked: from outside the session, the window is selected and the client's WezTerm window raised (complete)", async () => {
    const sty = lab.newSession("wezhome");
    const agent = await lab.agentWindow(sty, 1);
    lab.tmux(
      "new-session",
      "-d",
      "-s",
      "view",
      "-x",
      "100",
      "-y",
      "30",
      `exec env WEZTERM_PANE=1 WEZTERM_UNIX_SOCKET=${quote(SOCK)} screen -r ${quote(sty)}`,
    );
    await waitFor(() => /\(Attached\)/.test(lab.tryScreen("-ls", sty).stdout), "the screen client to attach");
    lab.screen("-S", sty, "-X", "select", "0");

    const { code, result } = await focus(agent.sessionId, lab.env);
    expect(result).toMatchObject({ state: "complete", backend: "screen", selection: { succeeded: true }, activation: { succeeded: true } });
    expect(result.activation.detail).toMatch(
      /^screen client \d+ on \/dev\/pts\/\d+ shows window 1; pane 1 is the focused pane of the WezTerm GUI/,
    );
    expect(code).toBe(0);
    await waitFor(() => lab.tmux("capture-pane", "-p", "-t", "view").includes(agent.marker), "the screen client to show the agent");
    expect(fakes.state<WeztermState>("wezterm").instances[SOCK]?.clients[0]?.focusedPane).toBe(1);
    expect(fakes.state<XdotoolState>("xdotool").active).toBe(GUI_XID);
  });
});
