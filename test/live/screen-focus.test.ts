// Live: real GNU screen sessions in a private SCREENDIR, a real attached screen client (inside an outer tmux pane, so the
// test reads exactly what it shows), records written by the real hook from processes named `claude` in screen windows,
// and the real CLI.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runFocus } from "../processes.ts";
import { writeLiveRecord } from "../records.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { ScreenLab, screenVersion, type AgentWindow, type ScreenClientView } from "./screen-lab.ts";

let version = "";
beforeAll(() => {
  version = screenVersion();
});

let sandbox: Sandbox;
let lab: ScreenLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new ScreenLab(sandbox);
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

const focus = (query: string, env: NodeJS.ProcessEnv = {}) => runFocus(query, { ...lab.env, ...env });

/** The attached client really shows the window: its marker on screen, no other agent's, and screen agrees. */
function expectShows(client: ScreenClientView, agent: AgentWindow, others: readonly AgentWindow[]): void {
  const seen = lab.seen(client);
  expect(seen).toContain(agent.marker);
  for (const other of others) if (other !== agent) expect(seen).not.toContain(other.marker);
  expect(lab.screen("-S", agent.sty, "-Q", "number")).toMatch(new RegExp(`^${agent.window} `));
}

describe("GNU screen focus, live", () => {
  it("records the version it runs against", () => {
    expect(version).toMatch(/^Screen version \d+\.\d+/);
  });

  it("selects the exact window among several; the attached client shows it (caller inside the session: complete)", async () => {
    const sty = lab.newSession("alpha");
    const first = await lab.agentWindow(sty, 1);
    lab.plainWindow(sty, 2, "PLAIN-alpha-2");
    const second = await lab.agentWindow(sty, 3);
    const client = await lab.attach(sty);
    const agents = [first, second];

    for (const target of [second, first, second]) {
      // Run as if from another window of the same session: the display in front of the user is this client.
      const { code, result } = await focus(target.sessionId, { STY: sty, WINDOW: "2" });
      expect(result).toMatchObject({
        state: "complete",
        backend: "screen",
        located: true,
        target: `GNU screen window ${target.window} in session ${sty}`,
      });
      expect(code).toBe(0);
      await waitForShown(client, target, agents);
    }
  });

  it("from outside the session: the client shows the window and the client process is found; its terminal (a tmux pane) cannot be raised: partial, exit 5", async () => {
    const sty = lab.newSession("beta");
    const agent = await lab.agentWindow(sty, 1);
    const client = await lab.attach(sty);
    lab.screen("-S", sty, "-X", "select", "0");
    await waitFor(() => !lab.seen(client).includes(agent.marker), "the client to show window 0");

    const { code, result } = await focus(agent.sessionId);
    await waitForShown(client, agent, []);
    expect(result).toMatchObject({ state: "partial", selection: { succeeded: true }, activation: { attempted: true, succeeded: false } });
    expect(result.activation.detail).toMatch(
      new RegExp(`^screen client ${client.pid} on /dev/pts/\\d+ shows window 1; the client's terminal is not one tongs-agents can raise`),
    );
    expect(code).toBe(5);
  });

  it("a window that does not exist in a live session: not located, nothing selected (failed, exit 6)", async () => {
    const sty = lab.newSession("gamma");
    const agent = await lab.agentWindow(sty, 1);
    const client = await lab.attach(sty);
    await writeLiveRecord(sandbox.stateDir, "missing-window-session", { env: { STY: sty, WINDOW: "9" } });
    const { code, result } = await focus("missing-window-session", { STY: sty });
    expect(result).toMatchObject({
      state: "failed",
      located: false,
      selection: { detail: `window 9 no longer exists in screen session ${sty}` },
    });
    expect(code).toBe(6);
    expect(lab.seen(client)).toContain(agent.marker); // nothing moved
  });

  it("an agent whose window was killed is stale: refused without touching the session (unavailable, exit 7)", async () => {
    const sty = lab.newSession("delta");
    const agent = await lab.agentWindow(sty, 1);
    lab.screen("-S", sty, "-p", "1", "-X", "kill");
    await waitFor(() => lab.tryScreen("-S", sty, "-p", "1", "-Q", "number").status !== 0, "window 1 to close");
    const { code, result } = await focus(agent.sessionId);
    expect(result).toMatchObject({ state: "unavailable", detail: expect.stringContaining("stale") });
    expect(code).toBe(7);
  });

  it("a session that is gone (failed, exit 6)", async () => {
    const sty = lab.newSession("epsilon");
    lab.screen("-S", sty, "-X", "quit");
    await waitFor(() => lab.tryScreen("-ls", sty).status !== 0 || !lab.tryScreen("-ls", sty).stdout.includes(sty), "the session to quit");
    await writeLiveRecord(sandbox.stateDir, "dead-session", { env: { STY: sty, WINDOW: "0" } });
    const { code, result } = await focus("dead-session");
    expect(result).toMatchObject({
      state: "failed",
      located: false,
      selection: { detail: expect.stringContaining(`screen session ${sty} is gone`) },
    });
    expect(code).toBe(6);
  });

  it("a detached session ignores select: failed, saying it is detached", async () => {
    const sty = lab.newSession("zeta");
    const agent = await lab.agentWindow(sty, 1);
    lab.screen("-S", sty, "-X", "select", "0");
    const { result } = await focus(agent.sessionId);
    expect(result).toMatchObject({
      state: "failed",
      located: true,
      selection: { succeeded: false, detail: expect.stringContaining("is detached") },
    });
  });
});

async function waitForShown(client: ScreenClientView, agent: AgentWindow, agents: readonly AgentWindow[]): Promise<void> {
  // screen redraws the display asynchronously after select.
  await waitFor(() => lab.seen(client).includes(agent.marker), `the client to show ${agent.marker}; it shows:\n${lab.seen(client)}`);
  expectShows(client, agent, agents);
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const { waitFor: wait } = await import("./tmux-lab.ts");
  await wait(condition, what);
}
