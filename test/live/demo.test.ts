// Live: the demo in a real terminal (node-pty): simulated agents on a private tmux server, the picker opens on
// attach, and leaving the demo takes the server and its temporary files with it. Without a terminal it prints.
import { existsSync } from "node:fs";
import pty from "node-pty";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI_BIN, ROOT, runCliProcess } from "../processes.ts";
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
    for (const text of ["waiting", "permission: Bash", "turn failed (API error)", "all 42 tests", "src/webapp@feature/login", "1>● waiting"]) expect(run.stdout).toContain(text);
    const root = /\/tmp\/tongs-demo-\w+/.exec(run.stdout)?.[0];
    expect(root && existsSync(root)).toBe(false);
  });

  it("in a terminal: attaches, opens the picker, and leaves no server or files behind", async () => {
    const demo = pty.spawn(process.execPath, [CLI_BIN, "demo"], { cols: 140, rows: 40, cwd: ROOT, env: { ...sandbox.env, TERM: "xterm-256color" } as Record<string, string> });
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
      if (socket) expect(existsSync(socket)).toBe(false);
    } finally {
      demo.kill();
    }
  });
});
