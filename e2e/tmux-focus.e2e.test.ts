// tmux focus in a container: several tmux sessions, windows and split panes on an inner server, real clients attached
// inside an outer tmux server (so the test reads exactly what each client shows, and its cursor), agents that are
// processes named exactly `claude` (stand-ins: synthetic) running the SessionStart hook command line that
// `tongs-agents install --agent claude` wrote into ~/.claude/settings.json, through /bin/sh -c as Claude Code does.
// `tongs-agents focus` must land the client on the exact pane: from outside tmux with --client, from a shell pane
// inside tmux without it, from the picker in the real popup that `tongs-agents tmux-setup --write` binds, and from a
// display-popup (no TMUX_PANE) passing --client as the popup does.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FocusResult } from "../src/focus/result.ts";
import { requireImage, startBox, E2E_DIR, type Box } from "./containers.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import { BoxTmuxLab, INNER, prepareLab, waitUntil, type AttachedClient } from "./tmux-focus-lab.ts";

const PACKAGES = ["tmux", "procps", "bash", "dash", "catatonit"];
const NODE = "/usr/local/bin/node";
const SHIM = "/usr/local/lib/node_modules/tongs-agents/bin/tongs-agents-hook.sh";
const CLI = "/usr/local/lib/node_modules/tongs-agents/bin/tongs-agents.js";
const POPUP_FOCUS = `${E2E_DIR}/popup-focus.sh`;

interface Agent {
  readonly name: string;
  readonly sessionId: string;
  readonly marker: string;
  readonly pane: string;
  readonly pid: number;
  readonly cwd: string;
}

const evidence = createEvidence("tmux-focus", "tmux focus in a container: sessions, windows, split panes, attached clients, popups");
let box: Box;
let lab: BoxTmuxLab;
const agents = new Map<string, Agent>();
let home: AttachedClient;
let spare: AttachedClient;

const agent = (name: string) => agents.get(name) as Agent;

/** Start a stand-in agent in a new session, window or split (tmux command words before `-c`). */
async function startAgent(name: string, where: string[]): Promise<Agent> {
  const sessionId = randomUUID();
  const marker = `MARKER-${name.toUpperCase()}`;
  const cwd = `/work/${name}`;
  await box.sh(`mkdir -p "$1"`, cwd);
  const [pane = "", pid = ""] = (
    await lab.inner(...where, "-c", cwd, "-P", "-F", "#{pane_id} #{pane_pid}", lab.agentCommand(sessionId, marker))
  ).split(" ");
  const started = { name, sessionId, marker, pane, pid: Number(pid), cwd };
  agents.set(name, started);
  return started;
}

async function focus(query: string, client?: AttachedClient): Promise<{ code: number; result: FocusResult }> {
  const run = await box.exec(["tongs-agents", "focus", query, "--json", ...(client ? ["--client", client.tty] : [])]);
  if (run.stdout === "") throw new Error(`tongs-agents focus ${query} printed nothing (exit ${run.code}): ${run.stderr}`);
  return { code: run.code, result: JSON.parse(run.stdout) as FocusResult };
}

/** The client shows the agent's pane: tmux says so, its marker is on screen, and the terminal cursor is in that pane. */
async function expectShows(client: AttachedClient, target: Agent): Promise<void> {
  expect(await lab.paneOf(client)).toBe(target.pane);
  const seen = await lab.seen(client);
  expect(seen.text).toContain(target.marker);
  expect(seen.cursor).toEqual(await lab.expectedCursor(target.pane));
}

async function shownPane(client: AttachedClient): Promise<string> {
  const seen = await lab.seen(client);
  return `client ${client.tty} shows ${await lab.paneOf(client)}, cursor ${seen.cursor.join(",")}:\n${seen.text}`;
}

describe("tmux focus in a container", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    box = await startBox(await requireImage());
    lab = new BoxTmuxLab(box);
    await prepareLab(box);
    evidence.addVersions(await boxVersions(box, PACKAGES));
    evidence.addVersions({ claude: "stand-in: a process named claude (node) running the installed hook command line (synthetic)" });
  }, 900_000);

  afterAll(async () => {
    try {
      await lab?.stop();
      await box?.stop();
    } finally {
      evidence.untested(
        "the real Claude Code CLI in these panes",
        "the stand-in runs Claude Code's hook command line exactly; the real CLI in a container is another suite's",
      );
      evidence.write();
    }
  });

  it("installs the Claude Code hooks and the tmux block with the installed CLI", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents install --agent claude` writes the SessionStart hook as `/bin/sh <package>/bin/tongs-agents-hook.sh <node> session-start --agent claude`; `tongs-agents tmux-setup --write` writes the popup binding into ~/.tmux.conf",
      kind: "live",
      how: "the packed package installed with npm -g in the container; both commands run there; settings.json and .tmux.conf read back",
    });
    const install = await box.exec(["tongs-agents", "install", "--agent", "claude"]);
    expect(install.code, install.stderr).toBe(0);
    const settings = JSON.parse(await box.sh("cat /root/.claude/settings.json")) as {
      hooks: Record<string, { hooks: { type: string; command: string }[] }[]>;
    };
    expect(settings.hooks.SessionStart).toEqual([
      { hooks: [{ type: "command", command: `/bin/sh ${SHIM} ${NODE} session-start --agent claude`, timeout: 5 }] },
    ]);
    const setup = await box.exec(["tongs-agents", "tmux-setup", "--write"]);
    expect(setup.code, setup.stderr).toBe(0);
    const conf = await box.sh("cat /root/.tmux.conf");
    // Plain paths are written as they are (shell-quote.ts quotes only what needs it).
    expect(conf).toContain(`bind-key a run-shell -b '${NODE} ${CLI} popup --client "#{client_tty}" >/dev/null 2>&1 || true'`);
  });

  it("records every stand-in agent with its pane, through the installed hook run by /bin/sh -c", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "agents in sessions, windows and split panes each get a record with their own pid and TMUX_PANE, written by the hook command line from settings.json",
      kind: "synthetic",
      how: "7 processes named claude in 2 sessions, 4 windows (two split into 2 and 3 panes), beside sessions and a window without agents, read ~/.claude/settings.json and run SessionStart's command through /bin/sh -c with the payload on stdin; tongs-agents list --json",
    });
    // The inner server starts after tmux-setup --write, so it reads ~/.tmux.conf as a user's tmux would.
    await lab.inner("new-session", "-d", "-s", "home", "-x", "120", "-y", "40");
    await lab.inner("new-session", "-d", "-s", "spare", "-x", "120", "-y", "40");
    const a1 = await startAgent("a1", ["new-session", "-d", "-s", "alpha", "-x", "120", "-y", "40"]);
    await startAgent("a2", ["split-window", "-d", "-h", "-t", a1.pane]);
    await startAgent("a3", ["new-window", "-d", "-t", "alpha:"]);
    await lab.inner("new-window", "-d", "-t", "alpha:"); // a plain shell window between agents
    const b1 = await startAgent("b1", ["new-session", "-d", "-s", "beta", "-x", "120", "-y", "40"]);
    const b2 = await startAgent("b2", ["split-window", "-d", "-v", "-t", b1.pane]);
    await startAgent("b3", ["split-window", "-d", "-h", "-t", b2.pane]);
    await startAgent("b4", ["new-window", "-d", "-t", "beta:"]);
    for (const started of agents.values()) {
      await waitUntil(
        async () => (await lab.capture(started.pane)).includes(`${started.marker}\nSessionStart hook exit`),
        `${started.name} in ${started.pane} to run its hook`,
      );
      expect(await lab.capture(started.pane)).toContain(`${started.marker}\nSessionStart hook exit 0\n`);
    }
    // The installed hook is the shim: its detached worker writes the record after the hook returned, so wait for them.
    let sessions: Record<string, unknown>[] = [];
    await waitUntil(async () => {
      const list = await box.exec(["tongs-agents", "list", "--json"]);
      expect(list.code, list.stderr).toBe(0);
      sessions = (JSON.parse(list.stdout) as { sessions: Record<string, unknown>[] }).sessions;
      return sessions.length === agents.size;
    }, `a record for each of the ${agents.size} agents`);
    expect(sessions).toHaveLength(agents.size);
    for (const started of agents.values()) {
      const record = sessions.find((session) => session.session_id === started.sessionId);
      expect(record, started.name).toMatchObject({
        harness: "claude",
        status: "started",
        identity: "process",
        pid: started.pid,
        cwd: started.cwd,
        stale: false,
        terminal: { env: { TMUX: expect.stringMatching(new RegExp(`^${INNER},\\d+,\\d+$`)), TMUX_PANE: started.pane } },
      });
      expect((await box.sh(`cat /proc/${started.pid}/comm`)).trim()).toBe("claude");
    }
  });

  it("focus --client lands that client on the exact pane among sessions, windows and splits; another client stays put", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents focus <id> --client <tty>` (run outside tmux) makes that attached client show the exact pane, terminal cursor included, across sessions, windows and split panes, and leaves a second client where it was",
      kind: "synthetic",
      how: "two real tmux clients attached inside an outer tmux; after each focus: the outer pane's text and cursor, and list-clients; stand-in agents",
    });
    home = await lab.attach("home");
    spare = await lab.attach("spare");
    const spareBefore = await lab.paneOf(spare);
    for (const name of ["a2", "b3", "a3", "a1", "b4", "b1", "b2"]) {
      const target = agent(name);
      const { code, result } = await focus(target.sessionId, home);
      expect(result, name).toMatchObject({
        state: "complete",
        backend: "tmux",
        located: true,
        selection: { succeeded: true },
        activation: { succeeded: true, detail: expect.stringContaining(`the client that asked (${home.tty}) shows ${target.pane}`) },
      });
      expect(code).toBe(0);
      await expectShows(home, target);
      expect(await lab.paneOf(spare)).toBe(spareBefore);
    }
  });

  it("unzooms a zoomed window to show a pane hidden behind the zoom", async ({ task }) => {
    evidence.prove(task, {
      claim: "focus onto a pane hidden by another pane's zoom unzooms the window and shows it",
      kind: "synthetic",
      how: "resize-pane -Z on b1, the client shows b1 only; focus b3; outer pane text and cursor",
    });
    await lab.inner("resize-pane", "-Z", "-t", agent("b1").pane);
    await focus(agent("b1").sessionId, home);
    expect((await lab.seen(home)).text).not.toContain(agent("b3").marker);
    const { result } = await focus(agent("b3").sessionId, home);
    expect(result.state).toBe("complete");
    await expectShows(home, agent("b3"));
    expect(await lab.inner("display-message", "-p", "-t", agent("b3").pane, "#{window_zoomed_flag}")).toBe("0");
  });

  it("focus typed in a shell pane inside tmux, without --client, moves the caller's own client", async ({ task }) => {
    evidence.prove(task, {
      claim: "run from a shell in a tmux pane (TMUX and TMUX_PANE set), focus picks the caller's own client",
      kind: "synthetic",
      how: "send-keys types `tongs-agents focus <id>` into the shell of session home, where one client is attached",
    });
    await lab.inner("switch-client", "-c", home.tty, "-t", "home");
    const target = agent("a3");
    const out = "/tmp/shell-focus.json";
    await lab.inner("send-keys", "-t", "home:", `tongs-agents focus ${target.sessionId} --json > ${out}`, "Enter");
    await waitUntil(async () => (await lab.paneOf(home)) === target.pane, `the client to land on ${target.pane}`, {
      explain: () => shownPane(home),
    });
    await expectShows(home, target);
    await waitUntil(async () => (await box.exec(["sh", "-c", `test -s ${out}`])).code === 0, "the focus result");
    expect(JSON.parse(await box.sh(`cat ${out}`))).toMatchObject({
      state: "complete",
      activation: { detail: expect.stringContaining("the caller's own client") },
    });
  });

  it("the picker key from tmux-setup --write opens a real popup (no TMUX_PANE); Enter lands the client on the exact pane", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "prefix+a as `tongs-agents tmux-setup --write` binds it opens `tongs-agents pick --client <tty>` in a display-popup whose environment has TMUX but no TMUX_PANE; filtering to one agent and Enter shows that exact pane on the client that opened it",
      kind: "synthetic",
      how: "C-b a typed into the outer pane (the client's terminal); /proc/<pick pid>/environ; the agent's directory typed as the filter; outer pane text and cursor after Enter",
    });
    await lab.inner("switch-client", "-c", home.tty, "-t", "home");
    await lab.keys(home, "C-b", "a");
    await waitUntil(async () => /tongs-agents {2}\d+ sessions/.test((await lab.seen(home)).text), "the picker in the popup", {
      explain: () => shownPane(home),
    });
    const pick = (await box.sh("ps -eo pid=,args=")).split("\n").find((line) => line.includes(`${CLI} pick --client ${home.tty}`));
    expect(pick, "a picker process pinned to this client").toBeDefined();
    const environ = await box.sh(`tr '\\0' '\\n' < /proc/${pick?.trim().split(/\s+/)[0]}/environ`);
    expect(environ).toMatch(new RegExp(`^TMUX=${INNER},\\d+,\\d+$`, "m"));
    expect(environ).not.toMatch(/^TMUX_PANE=/m);

    // Filter by the agent's directory, as the row shows it: a filter starting with a digit would jump to that row.
    const target = agent("b2");
    await lab.text(home, target.cwd.slice(1));
    await waitUntil(
      async () => (await lab.seen(home)).text.split("\n").filter((line) => /[1-9][ >][○●▶◆✓]/.test(line)).length === 1,
      "the filter to leave one row",
      { explain: () => shownPane(home) },
    );
    await lab.keys(home, "Enter");
    await waitUntil(async () => (await lab.paneOf(home)) === target.pane, `the client to land on ${target.pane}`, {
      explain: () => shownPane(home),
    });
    await waitUntil(async () => !/tongs-agents {2}\d+ sessions/.test((await lab.seen(home)).text), "the popup to close", {
      explain: () => shownPane(home),
    });
    await expectShows(home, target);
  });

  it("focus --client from inside a display-popup (no TMUX_PANE), as the popup passes the client", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents focus <id> --client '#{client_tty}'` run inside a real display-popup (TMUX set, no TMUX_PANE) lands the client under the popup on the exact pane",
      kind: "synthetic",
      how: "a key bound to run-shell -b 'tmux display-popup -c #{client_tty} -E ...' (run-shell expands the format), pressed in the client's terminal; the popup's env saved; outer pane text and cursor",
    });
    await box.container.copyContentToContainer([
      {
        content: `#!/bin/sh\n# $1 client tty, $2 query, $3 result file\nenv > "$3.env"\ntongs-agents focus "$2" --json --client "$1" > "$3.tmp"\nmv "$3.tmp" "$3"\n`,
        target: POPUP_FOCUS,
        mode: 0o755,
      },
    ]);
    const out = "/tmp/popup-focus.json";
    const target = agent("a2");
    await lab.inner("switch-client", "-c", home.tty, "-t", "home");
    await lab.inner(
      "bind-key",
      "-T",
      "root",
      "F5",
      "run-shell",
      "-b",
      `tmux display-popup -c '#{client_tty}' -E "${POPUP_FOCUS} '#{client_tty}' ${target.sessionId} ${out}"`,
    );
    await lab.keys(home, "F5");
    await waitUntil(async () => (await box.exec(["test", "-s", out])).code === 0, "the popup to run focus", {
      explain: () => shownPane(home),
    });
    const env = await box.sh(`cat ${out}.env`);
    expect(env).toMatch(new RegExp(`^TMUX=${INNER},\\d+,\\d+$`, "m"));
    expect(env).not.toMatch(/^TMUX_PANE=/m);
    expect(JSON.parse(await box.sh(`cat ${out}`))).toMatchObject({
      state: "complete",
      activation: { detail: expect.stringContaining(`the client that asked (${home.tty})`) },
    });
    await waitUntil(async () => (await lab.seen(home)).text.includes(target.marker), "the popup to close on the target", {
      explain: () => shownPane(home),
    });
    await expectShows(home, target);
  });
});
