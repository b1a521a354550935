// Declared agents are discovered by their exact process names, like built-in harnesses; a discovered process is
// focused through the terminal named in its own environment or its nearest ancestor's.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { configFilePath } from "../core/config-file.ts";
import { discoverProcesses, discoverableHarnesses } from "./discovery.ts";
import { terminalOfProcess } from "./process-terminal.ts";

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
  mkdirSync(join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents"), { recursive: true });
  writeFileSync(
    configFilePath(sandbox.env),
    JSON.stringify({
      agents: [
        { id: "mytool", process_names: ["mytool"] },
        { id: "claude", process_names: ["x"] },
      ],
    }),
  );
});
afterEach(() => sandbox.cleanup());

const processes = fakeProcessSource([
  fakeProcess(10, 1, "bash"),
  fakeProcess(11, 10, "mytool"),
  fakeProcess(12, 11, "mytool"),
  fakeProcess(13, 10, "node"),
  fakeProcess(14, 10, "claude"),
  fakeProcess(15, 10, "mytool", ["/bin/sh", "/home/u/bin/mytool"], { exe: "/usr/bin/dash" }),
  fakeProcess(16, 10, "sh", ["sh", "-c", "echo mytool"], { exe: "/usr/bin/dash" }),
]);

describe("discovering declared agents", () => {
  it("adds the valid declared agents after the built-in harnesses", () => {
    const ids = discoverableHarnesses(sandbox.env).map((harness) => harness.id);
    // The entry that reuses the id "claude" is rejected: claude appears once, as the built-in.
    expect(ids.filter((id) => id === "claude")).toHaveLength(1);
    expect(ids.at(-1)).toBe("mytool");
  });

  it("finds them by exact name (comm or argv[0] basename), never by a name among the arguments; helpers are skipped", async () => {
    const found = await discoverProcesses({
      processes,
      env: sandbox.env,
      list: async () => [
        { pid: 11, ppid: 10, name: "mytool", cmd: "mytool --serve" },
        { pid: 12, ppid: 11, name: "mytool", cmd: "mytool worker" },
        { pid: 13, ppid: 10, name: "node", cmd: "node /opt/bin/mytool mytool" },
        { pid: 14, ppid: 10, name: "claude", cmd: "claude" },
      ],
    });
    expect(found.map((proc) => [proc.harness, proc.pid])).toEqual([
      ["mytool", 11],
      ["claude", 14],
    ]);
  });

  it("finds a script by the kernel's comm (its file name) when the listing names its interpreter", async () => {
    const found = await discoverProcesses({
      processes,
      env: sandbox.env,
      list: async () => [
        { pid: 15, ppid: 10, name: "dash", cmd: "/bin/sh /home/u/bin/mytool" },
        { pid: 16, ppid: 10, name: "dash", cmd: "sh -c echo mytool" },
      ],
    });
    expect(found.map((proc) => [proc.harness, proc.pid])).toEqual([["mytool", 15]]);
  });
});

describe("the terminal of a discovered process", () => {
  const tmux = { TMUX: "/tmp/tmux-1/default,5,0", TMUX_PANE: "%4", SECRET: "no" };
  const world = fakeProcessSource([fakeProcess(10, 1, "bash"), fakeProcess(11, 10, "mytool"), fakeProcess(12, 11, "mytool")]);

  it("is read from its own environment, allowlisted keys only, with its tty", async () => {
    const environs: Record<number, Record<string, string>> = { 11: tmux };
    expect(await terminalOfProcess(11, { processes: world, environOf: async (pid) => environs[pid] })).toEqual({
      ok: true,
      terminal: { env: { TMUX: tmux.TMUX, TMUX_PANE: "%4" }, tty: "/dev/pts/4" },
      evidence: "the environment of process 11",
    });
  });

  it("or its nearest ancestor's that names a terminal", async () => {
    const environs: Record<number, Record<string, string>> = { 12: { PATH: "/bin" }, 10: tmux };
    expect(await terminalOfProcess(12, { processes: world, environOf: async (pid) => environs[pid] })).toMatchObject({
      ok: true,
      terminal: { env: { TMUX_PANE: "%4" } },
      evidence: "the environment of process 10 (an ancestor of 12)",
    });
  });

  it("refuses a gone process, a reused PID, and a process tree that names no terminal", async () => {
    const environOf = async () => ({ PATH: "/bin" });
    expect(await terminalOfProcess(99, { processes: world, environOf })).toEqual({ ok: false, reason: "process 99 is gone" });
    expect(await terminalOfProcess(11, { processes: world, environOf, startToken: "linux:boot:1" })).toEqual({
      ok: false,
      reason: "process 11 is now another process",
    });
    expect(await terminalOfProcess(12, { processes: world, environOf })).toEqual({
      ok: false,
      reason: "neither process 12 nor its ancestors name a terminal in their environment",
    });
  });
});
