// Live: `launch` starts an agent with a launch id and profile in its environment; the records its hooks write carry
// both, end to end.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionView } from "../../src/fleet/view.ts";
import { runCliProcess, runNode, CLI_BIN } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "launch");
  const dir = join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "profiles.json"),
    JSON.stringify({ profiles: { review: { command: "false", cwd: sandbox.root, env: { REVIEW_MODE: "1" } } } }),
  );
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

async function sessions(): Promise<SessionView[]> {
  return (JSON.parse((await runCliProcess(["list", "--json", "--all"], sandbox.env)).stdout) as { sessions: SessionView[] }).sessions;
}

describe("launch, live", () => {
  it("opens a new tmux window whose agent's records carry the launch id and profile", async () => {
    const home = lab.newSession("home");
    await lab.ready(home);
    const tmuxEnv = `${lab.inner},1,${lab.tmux(lab.inner, "display-message", "-p", "-t", "home", "#{session_id}").slice(1)}`;
    const argv = lab.agentArgv("launched-session", "LAUNCHED-MARKER");
    const run = await runNode(CLI_BIN, ["launch", "--profile", "review", "--json", "--", ...argv], {
      env: { ...sandbox.env, TMUX: tmuxEnv },
    });
    expect(run.code).toBe(0);
    const launched = JSON.parse(run.stdout) as { launch_id: string; profile_id: string; pane: string };
    expect(launched.launch_id).toMatch(/^[0-9a-f]{32}$/);
    await waitFor(() => lab.capture(lab.inner, launched.pane).includes("LAUNCHED-MARKER"), "the launched agent to start");
    expect(lab.tmux(lab.inner, "display-message", "-p", "-t", launched.pane, "#{pane_current_path}")).toBe(sandbox.root);
    const record = (await sessions()).find((session) => session.session_id === "launched-session");
    expect(record).toMatchObject({
      launch_id: launched.launch_id,
      profile_id: "review",
      status: "started",
      terminal: { env: { TMUX_PANE: launched.pane } },
    });
  });

  it("--here runs the agent in this terminal and passes its exit code through", async () => {
    const argv = lab.agentArgv("here-session", "HERE-MARKER", ["session-start"], { stay: false });
    const run = await runNode(CLI_BIN, ["launch", "--here", "--", ...argv], { env: sandbox.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("HERE-MARKER");
    const record = (await sessions()).find((session) => session.session_id === "here-session");
    expect(record?.launch_id).toMatch(/^[0-9a-f]{32}$/);
    expect(record?.profile_id).toBe("");
    expect((await runNode(CLI_BIN, ["launch", "--here", "--", "sh", "-c", "exit 7"], { env: sandbox.env })).code).toBe(7);
  });

  it("says clearly what is wrong with a profile, and refuses --window outside tmux", async () => {
    const dir = join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents");
    writeFileSync(join(dir, "profiles.json"), JSON.stringify({ profiles: { review: { command: "claude", args: [1] } } }));
    const bad = await runCliProcess(["launch", "--profile", "review"], sandbox.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(/profiles\.json: profiles\.review\.args\[0\]: 1 is a number, not a string$/);
    writeFileSync(join(dir, "profiles.json"), JSON.stringify({ profiles: { review: { command: "claude" } } }));
    const missing = await runCliProcess(["launch", "--profile", "nope"], sandbox.env);
    expect(missing.stderr).toContain('no profile "nope"');
    const outside = await runCliProcess(["launch", "--", "true"], sandbox.env);
    expect(outside.stderr).toContain("not inside tmux");
  });
});
