// Live: agents declared in config.json (docs/declared-agents.md), as real programs in real tmux panes. One runs no
// command on its events: it is discovered by its exact process name and focused through the terminal named in its
// environment. The other runs the real `tongs-agents-hook <event> --agent <id>` on each event it reads from its
// terminal (typed with send-keys), and its record goes through the mapped states to ended.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configFilePath } from "../../src/core/config-file.ts";
import type { SessionView } from "../../src/fleet/view.ts";
import { HOOK_BIN, runCliProcess, runFocus } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
let env: NodeJS.ProcessEnv;
let bin: string;

const EVENTS = { begin: "started", work: "running", ask: "waiting", done: "idle", fail: "error", bye: "ended" } as const;

beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "declared");
  // Discovery is what is under test here (the sandbox turns it off for hermetic listings).
  env = { ...sandbox.env, TONGS_AGENTS_DISCOVERY: "on" };
  const path = configFilePath(env);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    JSON.stringify({
      agents: [
        { id: "quiet-agent", process_names: ["quietagent"] },
        { id: "mytool", process_names: ["mytool"], events: EVENTS },
        { id: "claude", process_names: ["x"] },
      ],
    }),
  );
  bin = join(sandbox.root, "bin");
  mkdirSync(bin);
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
/** A shell script whose file name is the agent's process name: the kernel names the process (comm) after it. */
function program(name: string, body: string): string {
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}
/** Run `path` in a new inner tmux session with the sandbox's state and config dirs; returns its pane. */
function inPane(session: string, path: string): string {
  const vars = ["TONGS_AGENTS_STATE_DIR", "HOME", "XDG_CONFIG_HOME", "TONGS_AGENTS_NOTIFY"].map(
    (name) => `${name}=${quote(env[name] as string)}`,
  );
  return lab.tmux(
    lab.inner,
    "new-session",
    "-d",
    "-s",
    session,
    "-x",
    "100",
    "-y",
    "30",
    "-P",
    "-F",
    "#{pane_id}",
    `env ${vars.join(" ")} ${quote(path)}`,
  );
}
async function list(): Promise<SessionView[]> {
  const run = await runCliProcess(["list", "--json", "--all"], env);
  expect(run.code).toBe(0);
  return (JSON.parse(run.stdout) as { sessions: SessionView[] }).sessions;
}
const panePid = (pane: string) => Number(lab.tmux(lab.inner, "display-message", "-p", "-t", pane, "#{pane_pid}"));

describe("declared agents, live (tmux 3.3a, /bin/sh scripts as agents)", () => {
  it("a declared process without hook events is discovered by its exact name and focused through its pane", async () => {
    const path = program("quietagent", "echo QUIET-MARKER\nwhile :; do sleep 1; done");
    const pane = inPane("quiet", path);
    // Another pane whose arguments name the agent: never discovered (exact process evidence only).
    lab.tmux(lab.inner, "new-session", "-d", "-s", "decoy", `sh -c 'sleep 600; echo quietagent'`);
    const other = lab.plainWindow("decoy", "DECOY-MARKER");
    await waitFor(() => lab.capture(lab.inner, pane).includes("QUIET-MARKER"), "the quiet agent to start");
    const pid = panePid(pane);
    const sessions = await list();
    const found = sessions.filter((session) => session.harness === "quiet-agent");
    expect(found).toMatchObject([{ id: `discovered:quiet-agent:${pid}`, identity: "discovered", status: "discovered", pid }]);
    expect(sessions.some((session) => session.harness === "claude")).toBe(false);

    const client = await lab.attach("decoy");
    expect(lab.clients()[0]?.pane).not.toBe(pane);
    const { code, result } = await runFocus(String(pid), env, ["--client", client.tty]);
    expect(result).toMatchObject({
      state: "complete",
      backend: "tmux",
      detail: expect.stringContaining(`the environment of process ${pid}`),
    });
    expect(code).toBe(0);
    expect(lab.clients().find((attached) => attached.tty === client.tty)?.pane).toBe(pane);
    expect(lab.seen(client).text).toContain("QUIET-MARKER");
    expect(other).not.toBe(pane);
  });

  it("a declared agent that runs tongs-agents-hook on its events goes through the mapped states, and is focused", async () => {
    const hook = `${quote(process.execPath)} ${quote(HOOK_BIN)}`;
    const path = program(
      "mytool",
      [
        `${hook} begin --agent mytool </dev/null; echo "hook begin $?"`,
        "echo TOOL-MARKER",
        `n=0; while read -r event; do n=$((n+1)); ${hook} "$event" --agent mytool </dev/null; echo "hook $n $event $?"; [ "$event" = bye ] && break; done`,
        "while :; do sleep 1; done",
      ].join("\n"),
    );
    const pane = inPane("tool", path);
    await waitFor(() => lab.capture(lab.inner, pane).includes("TOOL-MARKER"), "the agent to start");
    const pid = panePid(pane);
    const record = async () => (await list()).find((session) => session.harness === "mytool" && session.identity === "process");
    expect(await record()).toMatchObject({ status: "started", pid, session_id: `process-${pid}`, last_event: "mytool.begin" });
    // Its hook captured the pane: no discovered duplicate, and the record carries TMUX_PANE.
    expect((await list()).filter((session) => session.harness === "mytool")).toHaveLength(1);
    expect((await record())?.terminal.env.TMUX_PANE).toBe(pane);

    const client = await lab.attach("tool");
    lab.tmux(lab.inner, "new-window", "-t", "tool:", "sh -c 'echo ELSEWHERE; exec sleep 600'");
    const { result } = await runFocus(String(pid), env, ["--client", client.tty]);
    expect(result).toMatchObject({ state: "complete", backend: "tmux" });
    expect(lab.clients().find((attached) => attached.tty === client.tty)?.pane).toBe(pane);

    for (const [index, event] of (["work", "ask", "work", "done", "fail", "bye"] as const).entries()) {
      lab.tmux(lab.inner, "send-keys", "-t", pane, event, "Enter");
      await waitFor(() => lab.capture(lab.inner, pane).includes(`hook ${index + 1} ${event} 0`), `the hook for ${event}`);
      // The pane shows every hook line; the last one printed is this event's, so the record already holds it.
      expect(await record()).toMatchObject({ recorded_status: EVENTS[event], last_event: `mytool.${event}` });
    }
    const ended = await record();
    expect(ended).toMatchObject({ status: "ended", pid });
  });

  it("doctor lists both declared agents and exits 1 for the entry that reuses a built-in id", async () => {
    const run = await runCliProcess(["doctor", "--agent", "claude"], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("  quiet-agent: process quietagent; no events (discovery and focus only)");
    expect(run.stdout).toContain("  mytool: process mytool; events begin -> started");
    expect(run.stdout).toContain('agents[2] (claude): id "claude" is a built-in harness; entry ignored');
  });
});
