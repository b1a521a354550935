// Live: `show` names the tmux pane of a session as session:window.pane, asked of the real tmux server the agent's
// record points at, and says what it can when that server no longer answers.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliProcess } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "show");
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

describe("show, live (tmux)", () => {
  it("prints the pane as session:window.pane with its pane id and server", async () => {
    lab.newSession("home");
    lab.plainWindow("home", "filler");
    const agent = lab.newWindow("home");
    await lab.ready(agent);
    const window = lab.tmux(lab.inner, "display-message", "-p", "-t", agent.pane, "#{window_index}");
    const shown = await runCliProcess(["show", agent.sessionId], sandbox.env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/\nterminal: +(.*)\n/);
    expect(/\nterminal: +(.*)\n/.exec(shown.stdout)?.[1]).toBe(`tmux home:${window}.0 (pane ${agent.pane}, server ${lab.inner})`);
    expect(shown.stdout).not.toMatch(/TMUX_PANE=|TMUX=/);

    // The server is gone (and the agent with it): the pane id and server are what is known.
    lab.stop();
    const gone = await runCliProcess(["show", agent.sessionId], sandbox.env);
    expect(gone.code, gone.stderr).toBe(0);
    expect(/\nterminal: +(.*)\n/.exec(gone.stdout)?.[1]).toBe(`tmux pane ${agent.pane}, server ${lab.inner}`);
  });
});
