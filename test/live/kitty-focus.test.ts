// Live: kitty 0.26.5 under Xvfb, with and without a window manager (openbox). Agents named exactly `claude` report
// session-start through the real hook from inside kitty windows; the real `tongs-agents focus` CLI focuses them; real
// keystrokes (xdotool type) then prove which window the user is at. A suite that cannot start Xvfb or kitty fails
// with the reason (x-lab.ts names the apt packages); it never skips.
import { rmSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runFocus } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { KittyLab, typedInto, type KittyAgent } from "./kitty-lab.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";
import { Agents, XServer } from "./x-lab.ts";

let sandbox: Sandbox;
let x: XServer;
let agents: Agents;
let kitties: KittyLab[];
let tmux: TmuxLab | undefined;

afterEach(async () => {
  tmux?.stop();
  tmux = undefined;
  for (const kitty of kitties) await kitty.stop();
  await x?.stop();
  sandbox.cleanup();
});

/** The real CLI, without DISPLAY or any terminal variable of its own: everything comes from the session's record. */
function focus(query: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { ...sandbox.env, ...extraEnv };
  delete env.DISPLAY;
  return runFocus(query, env);
}

async function startKitty(how?: Parameters<KittyLab["start"]>[0], name = `kitty-${kitties.length}`): Promise<KittyLab> {
  const kitty = new KittyLab(x, sandbox, name);
  kitties.push(kitty);
  return kitty.start(how);
}

/** Typed keys land in exactly this kitty window (and reach the agent's terminal input). */
async function expectKeystrokesReach(target: KittyAgent, kitty: KittyLab, label: string): Promise<void> {
  const typed = await typedInto(x, kitties, label);
  expect(typed.windows).toEqual([`${kitties.indexOf(kitty)}:${target.windowId}`]);
  await waitFor(() => agents.typed(target).includes(typed.token), `the agent in window ${target.windowId} to read the typed line`);
  expect(x.focusedWindow()).toBe(await kitty.xidOf(target.windowId));
}

for (const windowManager of [false, true]) {
  describe(`kitty focus, live (kitty 0.26.5, Xvfb, ${windowManager ? "openbox" : "no window manager"})`, () => {
    beforeEach(async () => {
      sandbox = makeSandbox();
      kitties = [];
      x = new XServer(sandbox);
      await x.start({ windowManager });
      agents = new Agents(sandbox);
    });

    it("lands on the exact window among OS windows, tabs, splits and two kitty instances; keystrokes reach only it", async () => {
      const kitty = await startKitty();
      const a = await kitty.launchAgent(agents, "os-window");
      const b = await kitty.launchAgent(agents, "tab", a.windowId);
      const c = await kitty.launchAgent(agents, "window", b.windowId);
      const d = await kitty.launchAgent(agents, "os-window");
      const other = await startKitty();
      const e = await other.launchAgent(agents, "os-window");

      for (const [label, target, owner] of [
        ["a", a, kitty],
        ["c", c, kitty],
        ["e", e, other],
        ["b", b, kitty],
        ["d", d, kitty],
        ["a2", a, kitty],
      ] as const) {
        const { code, result } = await focus(target.sessionId);
        expect(result, label).toMatchObject({
          state: "complete",
          backend: "kitty",
          located: true,
          selection: { succeeded: true },
          activation: { succeeded: true },
        });
        expect(code).toBe(0);
        await expectKeystrokesReach(target, owner, label);
      }
    });

    it("tmux inside kitty: the tmux client shows the pane and the kitty window it runs in is focused", async () => {
      tmux = new TmuxLab(sandbox);
      const agent = tmux.newSession("work");
      tmux.plainWindow("work", "NOT-THE-AGENT");
      await tmux.ready(agent);
      const kitty = await startKitty();
      const clientWindow = await kitty.launch(["env", "-u", "TMUX", "tmux", "-S", tmux.inner, "attach", "-t", "work"], "os-window");
      await waitFor(() => tmux?.clients().length === 1, "the tmux client in kitty to attach");
      expect(tmux.clients()[0]?.pane).not.toBe(agent.pane);
      // Another kitty OS window takes the focus away from the client's.
      await kitty.launchAgent(agents, "os-window");
      expect(x.focusedWindow()).not.toBe(await kitty.xidOf(clientWindow));

      const { code, result } = await focus(agent.sessionId);
      expect(result).toMatchObject({
        state: "complete",
        backend: "tmux",
        activation: { succeeded: true, detail: expect.stringContaining(`focused kitty window ${clientWindow}`) },
      });
      expect(code).toBe(0);
      expect(tmux.clients()[0]?.pane).toBe(agent.pane);
      const typed = await typedInto(x, kitties, "tmux");
      expect(typed.windows).toEqual([`0:${clientWindow}`]);
      expect(tmux.capture(tmux.inner, agent.pane)).toContain(typed.token);
      expect(x.focusedWindow()).toBe(await kitty.xidOf(clientWindow));
    });

    it("an overlay over the target (activation only): partial, exit 5, and keystrokes go to the overlay", async () => {
      const kitty = await startKitty();
      const target = await kitty.launchAgent(agents, "os-window");
      const overlay = await kitty.launch(["sleep", "100000"], "overlay", target.windowId);
      await kitty.launchAgent(agents, "os-window");
      const { code, result } = await focus(target.sessionId);
      expect(result).toMatchObject({
        state: "partial",
        selection: { succeeded: false },
        activation: { succeeded: true, detail: expect.stringContaining(`it shows kitty window ${overlay}, not ${target.windowId}`) },
      });
      expect(code).toBe(5);
      const typed = await typedInto(x, kitties, "overlay");
      expect(typed.windows).toEqual([`0:${overlay}`]);
    });

    it("listen_on in kitty.conf gets -<pid> appended; the socket from the captured KITTY_LISTEN_ON works (socket-only)", async () => {
      const kitty = await startKitty({ remoteControl: "kitty.conf" });
      const a = await kitty.launchAgent(agents, "os-window");
      const b = await kitty.launchAgent(agents, "os-window");
      const { result } = await focus(a.sessionId);
      expect(result).toMatchObject({
        state: "complete",
        target: expect.stringContaining(`(unix:${sandbox.root}/kitty-0/kitty-${kitty.pid})`),
      });
      await expectKeystrokesReach(a, kitty, "conf");
      expect(b.windowId).not.toBe(a.windowId);
    });

    it("remote control off: unavailable (exit 7), saying which kitty.conf lines to add", async () => {
      const { argv, agent } = agents.next();
      await startKitty({ remoteControl: "off", firstWindow: argv });
      await agents.ready(agent);
      const { code, result } = await focus(agent.sessionId);
      expect(result).toMatchObject({ state: "unavailable", backend: "kitty" });
      expect(result.detail).toContain("no KITTY_LISTEN_ON");
      expect(result.detail).toContain("`allow_remote_control socket-only` (or `yes`) and `listen_on unix:/tmp/kitty`");
      expect(code).toBe(7);
    });

    it("the socket removed while the agent lives: unavailable, naming the socket", async () => {
      const kitty = await startKitty();
      const agent = await kitty.launchAgent(agents, "os-window");
      rmSync(kitty.listenOn.slice("unix:".length));
      const { code, result } = await focus(agent.sessionId);
      expect(result).toMatchObject({ state: "unavailable", detail: expect.stringContaining(`${kitty.listenOn} does not answer (ENOENT`) });
      expect(code).toBe(7);
    });

    if (windowManager) {
      it("a minimized OS window: kitty (started under an EWMH manager) restores it itself, even without X tools", async () => {
        const kitty = await startKitty();
        const a = await kitty.launchAgent(agents, "os-window");
        await kitty.launchAgent(agents, "os-window");
        x.xdotool("windowminimize", "--sync", String(await kitty.xidOf(a.windowId)));
        const { result } = await focus(a.sessionId, { PATH: sandbox.root });
        expect(result).toMatchObject({ state: "complete" });
        await expectKeystrokesReach(a, kitty, "min");
      });
    }
  });
}

// kitty's GLFW asks the window manager for the focus (_NET_ACTIVE_WINDOW, which also restores a minimized window) only
// when it found an EWMH manager at its own start-up; otherwise it raises and sets the input focus, which does nothing
// for a minimized window. A kitty started before the window manager shows it.
describe("kitty started before the window manager (kitty 0.26.5, Xvfb, openbox started afterwards)", () => {
  beforeEach(async () => {
    sandbox = makeSandbox();
    kitties = [];
    x = new XServer(sandbox);
    await x.start({ windowManager: false });
    agents = new Agents(sandbox);
  });

  async function minimizedTarget(): Promise<{ kitty: KittyLab; a: KittyAgent; b: KittyAgent; xid: number }> {
    const kitty = await startKitty();
    await x.startWindowManager();
    const a = await kitty.launchAgent(agents, "os-window");
    const b = await kitty.launchAgent(agents, "os-window");
    const xid = await kitty.xidOf(a.windowId);
    x.xdotool("windowminimize", "--sync", String(xid));
    return { kitty, a, b, xid };
  }

  it("focus-window leaves a minimized OS window minimized; xdotool windowactivate restores it", async () => {
    const { kitty, a, xid } = await minimizedTarget();
    const { result } = await focus(a.sessionId);
    expect(result).toMatchObject({
      state: "complete",
      activation: { detail: expect.stringContaining(`xdotool windowactivate 0x${xid.toString(16)}; it is the active window`) },
    });
    await expectKeystrokesReach(a, kitty, "min");
  });

  it("without xdotool or wmctrl: selection only (partial, exit 5); keystrokes do not reach it", async () => {
    const { kitty, a, b } = await minimizedTarget();
    const { code, result } = await focus(a.sessionId, { PATH: sandbox.root });
    expect(result).toMatchObject({
      state: "partial",
      selection: { succeeded: true },
      activation: { succeeded: false, detail: expect.stringContaining("neither xdotool nor wmctrl is installed") },
    });
    expect(code).toBe(5);
    const os = (await kitty.ls()).find((candidate) => candidate.tabs.some((tab) => tab.windows.some((window) => window.id === a.windowId)));
    expect(os?.is_focused).toBe(false);
    expect(os?.tabs.find((tab) => tab.is_active_tab)?.windows.find((window) => window.is_active_window)?.id).toBe(a.windowId);
    const typed = await typedInto(x, kitties, "nomin");
    expect(typed.windows).toEqual([`0:${b.windowId}`]);
  });
});
