// Smoke: the image runs tmux, the installed CLI answers, and a hook event sent inside the container makes a record.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireImage, startBox, type Box } from "./containers.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import { startHarness, TMUX_SOCKET } from "./harness.ts";

const evidence = createEvidence("smoke", "Container smoke test: image, tmux, CLI, one hook event");
let box: Box;

describe("smoke", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    box = await startBox(await requireImage());
    evidence.addVersions(await boxVersions(box, ["tmux", "procps", "catatonit"]));
  }, 900_000);

  afterAll(async () => {
    try {
      await box?.stop();
    } finally {
      evidence.write();
    }
  });

  it("runs a tmux server without a terminal, reparented to PID 1", async ({ task }) => {
    evidence.prove(task, {
      claim: "tmux runs detached in the container; its server is reparented to PID 1 (catatonit)",
      kind: "live",
      how: "tmux new-session -d, list-panes -a, ps",
    });
    await box.sh(`tmux -S "$1" new-session -d -s smoke -x 120 -y 40`, TMUX_SOCKET);
    const panes = await box.sh(`tmux -S "$1" list-panes -a -F '#{session_name} #{pane_id} #{pane_pid}'`, TMUX_SOCKET);
    expect(panes).toMatch(/^smoke %\d+ \d+$/m);
    // The server's comm is "tmux: server" (it renames itself); its parent exited after forking it.
    const servers = (await box.sh("ps -eo ppid=,comm="))
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.endsWith("tmux: server"));
    expect(servers).toEqual(["1 tmux: server"]);
    expect((await box.sh("cat /proc/1/comm")).trim()).toBe("catatonit");
  });

  it("has a working tongs-agents and tongs-agents-hook on PATH", async ({ task }) => {
    evidence.prove(task, {
      claim: "the packed package installs: tongs-agents and tongs-agents-hook are on PATH and run on Node 22",
      kind: "live",
      how: "npm pack, npm install --global into the image, tongs-agents list --json",
    });
    const list = await box.exec(["tongs-agents", "list", "--json"], { TONGS_AGENTS_STATE_DIR: "/tmp/smoke-state" });
    expect(list).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(list.stdout)).toEqual({ sessions: [], invalid: [], hosts: [] });
    const hook = await box.exec(["sh", "-c", 'command -v tongs-agents-hook && readlink -f "$(command -v tongs-agents-hook)"']);
    expect(hook.stdout).toContain("/usr/local/lib/node_modules/tongs-agents/bin/tongs-agents-hook.cjs");
  });

  it("records a hook event sent by a harness process in a tmux pane", async ({ task }) => {
    evidence.prove(task, {
      claim: "a hook event sent inside the container creates a record with process identity and the tmux pane",
      kind: "synthetic",
      how: "a process named claude in a tmux window runs `sh -c 'tongs-agents-hook session-start --agent claude'` with a SessionStart payload; tongs-agents list --json",
    });
    const state = "/tmp/smoke-records";
    const claude = await startHarness(box, "claude", "smoke-claude", { TONGS_AGENTS_STATE_DIR: state });
    const payload = JSON.stringify({ session_id: "smoke-session-1", cwd: "/tmp", hook_event_name: "SessionStart", source: "startup" });
    const reply = await claude.run(["/bin/sh", "-c", "tongs-agents-hook session-start --agent claude"], payload);
    expect(reply).toMatchObject({ code: 0, stdout: "", stderr: "" });

    const list = await box.exec(["tongs-agents", "list", "--json"], { TONGS_AGENTS_STATE_DIR: state });
    expect(list.code).toBe(0);
    const { sessions } = JSON.parse(list.stdout) as { sessions: Record<string, unknown>[] };
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      harness: "claude",
      session_id: "smoke-session-1",
      status: "started",
      identity: "process",
      pid: claude.pid,
      stale: false,
      cwd: "/tmp",
    });
    expect(sessions[0]?.terminal).toMatchObject({ env: { TMUX_PANE: claude.pane } });
  });

  it("reaps orphans: no zombies after the tmux server exits", async ({ task }) => {
    evidence.prove(task, {
      claim: "PID 1 reaps orphaned processes (tmux daemonizes)",
      kind: "live",
      how: "tmux kill-server, then ps shows no zombie",
    });
    const before = await box.sh("ps -eo comm=");
    expect(before).toContain("tmux: server");
    expect(before).toMatch(/^claude$/m);
    await box.sh(`tmux -S "$1" kill-server`, TMUX_SOCKET);
    // The server and the pane processes exit asynchronously; wait (bounded) until every one of them is gone, zombies
    // included: a zombie keeps its comm, so a PID 1 that does not reap would keep them listed forever.
    await expect
      .poll(async () => (await box.sh("ps -eo stat=,comm=")).split("\n").filter((line) => /tmux|claude|^\s*Z/.test(line)), {
        timeout: 30_000,
      })
      .toEqual([]);
  });
});
