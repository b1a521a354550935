// Live: plain X11 terminals (xterm, which sets WINDOWID) under Xvfb, with and without openbox. Agents named exactly
// `claude` report session-start through the real hook from inside each xterm; the real CLI focuses them; real
// keystrokes (xdotool type) prove which terminal receives input: the agent reading it records the line.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runFocus } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";
import { Agents, XServer, type Agent } from "./x-lab.ts";

let sandbox: Sandbox;
let x: XServer;
let agents: Agents;
let tmux: TmuxLab | undefined;

afterEach(async () => {
  tmux?.stop();
  tmux = undefined;
  await x?.stop();
  sandbox.cleanup();
});

function focus(query: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { ...sandbox.env, ...extraEnv };
  delete env.DISPLAY;
  return runFocus(query, env);
}

async function xtermAgent(): Promise<Agent & { windowId: number }> {
  const { argv, agent } = agents.next();
  await x.xterm(argv);
  return { ...agent, windowId: await agents.ready(agent) };
}

/** Real keystrokes reach exactly this agent's terminal: its agent reads the line, no other agent does. */
async function expectKeystrokesReach(target: Agent, all: readonly Agent[], label: string): Promise<void> {
  const token = `tok${label}${Math.random().toString(36).slice(2, 8)}`;
  x.type(token);
  await waitFor(() => all.some((agent) => agents.typed(agent).includes(token)), `some agent to read ${token}`);
  expect(all.filter((agent) => agents.typed(agent).includes(token)).map((agent) => agent.sessionId)).toEqual([target.sessionId]);
}

for (const windowManager of [false, true]) {
  describe(`X11 window focus, live (xterm, Xvfb, ${windowManager ? "openbox" : "no window manager"})`, () => {
    beforeEach(async () => {
      sandbox = makeSandbox();
      x = new XServer(sandbox);
      await x.start({ windowManager });
      agents = new Agents(sandbox);
    });

    it("focuses each xterm in turn; keystrokes reach only it", async () => {
      const a = await xtermAgent();
      const b = await xtermAgent();
      const c = await xtermAgent();
      for (const [label, target] of [
        ["a", a],
        ["c", c],
        ["b", b],
        ["a2", a],
      ] as const) {
        const { code, result } = await focus(target.sessionId);
        expect(result, label).toMatchObject({
          state: "complete",
          backend: "x11",
          selection: { succeeded: true, detail: expect.stringContaining("a plain X11 terminal has no tabs or panes to select") },
          activation: {
            succeeded: true,
            detail: expect.stringContaining(windowManager ? "it is the active window" : "it is the input focus (no window manager)"),
          },
        });
        expect(code).toBe(0);
        expect(x.focusedWindow()).toBe(target.windowId);
        await expectKeystrokesReach(target, [a, b, c], label);
      }
    });

    it("tmux inside xterm: the client shows the pane and its xterm has the focus", async () => {
      tmux = new TmuxLab(sandbox);
      const agent = tmux.newSession("work");
      tmux.plainWindow("work", "NOT-THE-AGENT");
      await tmux.ready(agent);
      await x.xterm(["env", "-u", "TMUX", "tmux", "-S", tmux.inner, "attach", "-t", "work"]);
      await waitFor(() => tmux?.clients().length === 1, "the tmux client in xterm to attach");
      // Another xterm has the focus (without a window manager a new window does not take it: focus it first).
      const other = await xtermAgent();
      expect((await focus(other.sessionId)).result.state).toBe("complete");
      expect(x.focusedWindow()).toBe(other.windowId);

      const { code, result } = await focus(agent.sessionId);
      expect(result).toMatchObject({
        state: "complete",
        backend: "tmux",
        activation: { succeeded: true, detail: expect.stringContaining("raised X11 window") },
      });
      expect(code).toBe(0);
      expect(tmux.clients()[0]?.pane).toBe(agent.pane);
      const token = `toktmux${Math.random().toString(36).slice(2, 8)}`;
      x.type(token);
      await waitFor(() => tmux?.capture(tmux.inner, agent.pane).includes(token) === true, "the typed line in the agent's pane");
      expect(agents.typed(other)).not.toContain(token);
    });

    it("without xdotool and wmctrl: unavailable (exit 7), naming the package", async () => {
      const a = await xtermAgent();
      const { code, result } = await focus(a.sessionId, { PATH: sandbox.root });
      expect(result).toMatchObject({
        state: "unavailable",
        backend: "x11",
        detail: "cannot focus X11 windows: neither xdotool nor wmctrl is installed (Debian/Ubuntu: apt install xdotool)",
      });
      expect(code).toBe(7);
    });

    if (windowManager) {
      it("restores a minimized xterm", async () => {
        const a = await xtermAgent();
        const b = await xtermAgent();
        x.xdotool("windowminimize", "--sync", String(a.windowId));
        const { result } = await focus(a.sessionId);
        expect(result).toMatchObject({ state: "complete", backend: "x11" });
        expect(x.focusedWindow()).toBe(a.windowId);
        await expectKeystrokesReach(a, [a, b], "min");
      });
    }
  });
}
