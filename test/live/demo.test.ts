// Live: the demo in a real terminal (node-pty): simulated agents on a private tmux server, the picker opens on
// attach, and leaving the demo takes the server and its temporary files with it. Without a terminal it prints.
import { existsSync } from "node:fs";
import pty from "@lydell/node-pty";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dirname, join } from "node:path";
import { DEMO_AGENTS, startDemo, type DemoAgent } from "../../src/cli/demo-agents.ts";
import { CLI_BIN, HOOK_BIN, ROOT, runCliProcess } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { waitFor } from "./tmux-lab.ts";

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.cleanup());

describe("demo, live", () => {
  it("without a terminal: prints the list and the picker's first screen, and cleans up", async () => {
    const run = await runCliProcess(["demo"], sandbox.env);
    expect(run.code).toBe(0);
    for (const text of [
      "waiting",
      "permission: Bash",
      "turn failed (API error)",
      "all 42 tests",
      "src/webapp@feature/login",
      "1>● waiting",
    ])
      expect(run.stdout).toContain(text);
    const root = /\/tmp\/tongs-demo-\w+/.exec(run.stdout)?.[0];
    expect(root && existsSync(root)).toBe(false);
  });

  it("in a terminal: attaches, opens the picker, and leaves no server or files behind", async () => {
    const demo = pty.spawn(process.execPath, [CLI_BIN, "demo"], {
      cols: 140,
      rows: 40,
      cwd: ROOT,
      env: { ...sandbox.env, TERM: "xterm-256color" } as Record<string, string>,
    });
    let output = "";
    demo.onData((data) => (output += data));
    const exited = new Promise<number>((resolve) => demo.onExit(({ exitCode }) => resolve(exitCode)));
    try {
      await waitFor(() => output.includes("tongs-agents  5 sessions"), "the picker to open in the demo", 30_000);
      expect(output).toContain("permission: Bash");
      const socket = /-S (\/tmp\/tongs-demo-\w+\/tmux\.sock)/.exec(output)?.[1];
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      demo.write("\u001b"); // close the picker (tmux waits escape-time, 500 ms, to tell Esc from Meta)
      await pause(1500);
      demo.write("\u0002"); // prefix, then d: leave the demo
      await pause(300);
      demo.write("d");
      expect(await exited).toBe(0);
      expect(socket).toBeDefined();
      // Nothing of the demo's temporary world is left, nor comes back (a dying agent's hook once recreated it).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(existsSync(dirname(socket as string))).toBe(false);
    } finally {
      demo.kill();
    }
  });
});

describe("the demo's world", () => {
  // A busy agent runs a hook every few milliseconds: stopping the demo must leave none running that could write the
  // state dir again after it was removed (it did, in one of two interactive runs: a dying agent's hook recreated it).
  it("stop() leaves no file behind, even while agents are running hooks", async () => {
    const busy: DemoAgent = {
      harness: "codex",
      repo: "busy",
      branch: "main",
      repeatMs: 5,
      steps: [{ after: 10, alias: "session-start", say: "busy" }],
    };
    for (let run = 0; run < 4; run++) {
      const world = startDemo({ node: process.execPath, hook: HOOK_BIN, configLines: [], agents: [busy, busy, busy] });
      await waitFor(() => existsSync(join(world.stateDir, "sessions")), "the first hook to write");
      await new Promise((resolve) => setTimeout(resolve, 300));
      world.stop();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(existsSync(world.root), `run ${run}: ${world.root}`).toBe(false);
    }
  });
});

describe("the demo's simulated agent, live in tmux", () => {
  it("answers its permission prompt like a real agent: 1 or 2 moves it from waiting to running, then it finishes", async () => {
    const [asking] = DEMO_AGENTS;
    if (!asking?.answers) throw new Error("the first demo agent asks for a permission");
    const world = startDemo({
      node: process.execPath,
      hook: HOOK_BIN,
      configLines: [],
      agents: [
        { ...asking, repo: "yes" },
        { ...asking, repo: "no" },
      ],
    });
    const status = async (repo: string) => {
      const listed = await runCliProcess(["list", "--json", "--all"], world.env);
      const sessions = JSON.parse(listed.stdout).sessions as { cwd: string; status: string; detail: string }[];
      return sessions.find((session) => session.cwd.endsWith(`/src/${repo}`));
    };
    try {
      for (const repo of ["yes", "no"]) await until(async () => (await status(repo))?.status === "waiting", `${repo} to ask`, 20_000);
      world.server.tmux("send-keys", "-t", "demo:yes", "x"); // not an answer: still asking
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await status("yes"))?.status).toBe("waiting");
      world.server.tmux("send-keys", "-t", "demo:yes", "1");
      world.server.tmux("send-keys", "-t", "demo:no", "2");
      await until(async () => (await status("yes"))?.status === "running", "yes to run the allowed command");
      expect((await status("yes"))?.detail).toBe("Bash finished");
      await until(async () => (await status("no"))?.status === "running", "no to go on another way");
      for (const repo of ["yes", "no"])
        await until(async () => (await status(repo))?.status === "idle", `${repo} to finish its turn`, 20_000);
      expect((await status("no"))?.detail).toContain("did not run the tests");
      expect(world.server.tmux("capture-pane", "-p", "-t", "demo:yes").stdout).toContain("12 passed");
    } finally {
      world.stop();
    }
  });
});

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  for (const started = Date.now(); !(await condition());) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
