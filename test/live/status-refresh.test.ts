// Live: the status segment moves with the agent. A real tmux 3.3 server with `status-interval 15` (its default) reads
// the block tmux-setup writes; a client is attached inside an outer tmux, whose pane shows exactly the status line that
// client draws. An agent (a process named claude) reports each event through the hook shim, as installed hooks do: the
// drainer applies it and asks the server to redraw (src/hook/status-refresh.ts). Each change must be drawn within 1 s,
// three times in a row (a 15 s interval tick landing in all three 1 s windows by chance: about 1 in 3,000).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliProcess } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor, type AttachedClient } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "refresh");
});
afterEach(async () => {
  await runCliProcess(["serve", "--stop"], sandbox.env);
  lab.stop();
  sandbox.cleanup();
});

function statusLine(client: AttachedClient): string {
  return lab.seen(client).text.trimEnd().split("\n").at(-1) ?? "";
}

/** Send one event from the agent's pane and return how long the attached client took to draw `expected`. */
async function timeToDraw(pane: string, alias: string, client: AttachedClient, expected: RegExp): Promise<number> {
  expect(statusLine(client)).not.toMatch(expected);
  const started = performance.now();
  lab.send(pane, alias);
  await waitFor(() => expected.test(statusLine(client)), `the status line to show ${expected}`, 20_000);
  return performance.now() - started;
}

describe("the status segment redraws when an agent's state changes", () => {
  it("with status-interval 15, each change shows on the attached client's status line within 1 s", async () => {
    const conf = join(sandbox.root, "block.conf");
    expect((await runCliProcess(["tmux-setup", "--write", "--file", conf], sandbox.env)).code).toBe(0);
    writeFileSync(conf, `set -g status-interval 15\n${readFileSync(conf, "utf8")}`);
    lab.tmux(lab.inner, "-f", conf, "new-session", "-d", "-s", "boot", "sleep 600");
    expect(lab.tmux(lab.inner, "show-options", "-gv", "status-interval")).toBe("15");
    const pane = lab.drivenAgent("home");
    const client = await lab.attach("home");
    lab.send(pane, "session-start", "prompt-submit");
    // The first drawing notes this server as one that shows the segment; from then on a change redraws it.
    await waitFor(() => /▶1/.test(statusLine(client)), "the running agent on the status line", 30_000);
    const timings: number[] = [];
    for (let round = 0; round < 3; round++) {
      timings.push(await timeToDraw(pane, "permission-request", client, /●1/));
      timings.push(await timeToDraw(pane, "tool-done", client, /▶1/));
    }
    expect(lab.capture(lab.inner, pane)).not.toMatch(/exit [^0]/);
    for (const ms of timings) expect(ms).toBeLessThan(1000);
    console.log(`status segment redrawn after ${timings.map((ms) => `${Math.round(ms)} ms`).join(", ")} (status-interval 15)`);
  });
});
