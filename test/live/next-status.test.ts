// Live: `next` cycles the attached client through the sessions that wait for the user; `status` counts them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliProcess } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "next");
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

describe("next and status, live", () => {
  it("next goes to the waiting sessions in turn, and status counts them", async () => {
    const home = lab.newSession("home");
    const asking = { events: ["session-start", "prompt-submit", "permission-request"] };
    const one = lab.newWindow("home", asking);
    const two = lab.newSession("other", asking);
    const busy = lab.newSession("busy", { events: ["session-start", "prompt-submit"] });
    await lab.ready(home, one, two, busy);
    const client = await lab.attach("home");
    const status = await runCliProcess(["status", "--format", "plain"], sandbox.env);
    expect(status.stdout.trim()).toBe("2 waiting, 1 running, 1 started");
    const tmuxStatus = await runCliProcess(["status", "--format", "tmux"], sandbox.env);
    expect(tmuxStatus.stdout.trim()).toBe("#[fg=yellow,bold]●2 #[fg=cyan]▶1#[default]");

    const landed: string[] = [];
    for (let step = 0; step < 3; step++) {
      const run = await runCliProcess(["next", "--client", client.tty], sandbox.env);
      expect(run.code).toBe(0);
      landed.push(lab.clients().find((attached) => attached.tty === client.tty)?.pane as string);
    }
    expect(new Set(landed.slice(0, 2))).toEqual(new Set([one.pane, two.pane]));
    expect(landed[2]).toBe(landed[0]);
  });
});
