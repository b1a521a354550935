// Pi in a container, live: the Pi release pinned in test/live/harnesses.json, run interactively in a tmux pane
// against the synthetic provider served on 127.0.0.1 inside the same container, with the bridge that
// `tongs-agents install --agent pi` installs (run there, as a user would). A client attached inside an outer tmux
// shows what the user sees; prompts are typed into it. Every state the record goes through is logged by a watcher in
// the container (e2e/fixtures/record-watch.mjs reads the records; the hook and bridge are untouched).
// The permission dialog is Pi's own example extension `examples/extensions/permission-gate.ts` (shipped in Pi's npm
// package), which asks before a dangerous bash command: the provider's tool call runs `rm -rf /tmp/pi-scratch; sleep 3`.
import { posix } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../containers/recipe.ts";
import type { FocusResult } from "../src/focus/result.ts";
import { shellQuote } from "../src/core/shell-quote.ts";
import { requireImage, startBox, type Box } from "./containers.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import { PI_AGENT_DIR, PI_ENV, PINNED_PI, configurePi, readHistory, startProvider, startWatcher, type HistoryEntry } from "./pi-box.ts";
import { DEFAULT_TEXT, FINAL_TEXT } from "./provider/script.mjs";
import { BoxTmuxLab, INNER, prepareLab, waitUntil, type AttachedClient } from "./tmux-focus-lab.ts";

const PACKAGES = ["tmux", "procps", "bash", "catatonit"];
const PI_PACKAGE_DIR = `/usr/local/lib/node_modules/${PINNED_PI.package}`;
const PERMISSION_GATE = `${PI_PACKAGE_DIR}/examples/extensions/permission-gate.ts`;
const BRIDGE = "/usr/local/lib/node_modules/tongs-agents/pi-bridge";
const SCRATCH = "/tmp/pi-scratch";
const PROJECT = "/work/project";
const TOOL_COMMAND = `rm -rf ${SCRATCH}; sleep 3`;
const WAITING_DETAIL = /^waiting for input: .*Dangerous command: rm -rf \/tmp\/pi-scratch; sleep 3 Allow\?$/;
const ERROR_DETAIL = /^turn failed: 400\b.*synthetic failure requested by FAILAPI/;

interface Expected {
  readonly status: string;
  readonly detail: string | RegExp;
  readonly tool?: string;
  /** A state that may come and go between two watcher reads (milliseconds), so its absence is no failure. */
  readonly fleeting?: boolean;
}

const evidence = createEvidence(
  "pi",
  `Pi ${PINNED_PI.version} interactive in tmux in a container: lifecycle through the installed bridge, and focus`,
);
let box: Box;
let lab: BoxTmuxLab;
let client: AttachedClient;
let providerUrl = "";
const pi = { pane: "", pid: 0, sessionId: "" };

const record = async (): Promise<Record<string, unknown>> => {
  const shown = await box.exec(["tongs-agents", "show", pi.sessionId, "--json"]);
  if (shown.code !== 0) throw new Error(`tongs-agents show ${pi.sessionId} exited ${shown.code}: ${shown.stdout}${shown.stderr}`);
  return JSON.parse(shown.stdout) as Record<string, unknown>;
};

const piHistory = async () => (await readHistory(box)).filter((entry) => entry.harness === "pi");
const summary = (entries: readonly HistoryEntry[]) =>
  entries.map(({ status, detail, tool }) => `${status} | ${detail} | ${tool}`).join("\n");

async function waitForState(what: string, test: (entry: HistoryEntry) => boolean): Promise<HistoryEntry> {
  let found: HistoryEntry | undefined;
  await waitUntil(
    async () => {
      found = (await piHistory()).find(test);
      return found !== undefined;
    },
    what,
    { timeoutMs: 90_000, explain: async () => `history:\n${summary(await piHistory())}\npane:\n${await lab.capture(pi.pane)}` },
  );
  return found as HistoryEntry;
}

/** Consecutive entries with the same state collapsed (the watcher also logs a change of last_event or sequence). */
function states(entries: readonly HistoryEntry[]): HistoryEntry[] {
  return entries.filter((entry, index) => {
    const previous = entries[index - 1];
    return !previous || previous.status !== entry.status || previous.detail !== entry.detail || previous.tool !== entry.tool;
  });
}

/** The states in order, each matched by one expected state; a fleeting expected state may be missing. */
function expectTimeline(entries: readonly HistoryEntry[], expected: readonly Expected[]): void {
  const matches = (entry: HistoryEntry | undefined, want: Expected) =>
    entry !== undefined &&
    entry.status === want.status &&
    (typeof want.detail === "string" ? entry.detail === want.detail : want.detail.test(entry.detail)) &&
    entry.tool === (want.tool ?? "");
  let index = 0;
  for (const want of expected) {
    if (matches(entries[index], want)) index++;
    else if (!want.fleeting)
      throw new Error(`state ${index + 1}: expected ${want.status} | ${String(want.detail)}; the states were:\n${summary(entries)}`);
  }
  if (index !== entries.length) throw new Error(`unexpected states after ${index}:\n${summary(entries)}`);
}

async function focusPi(): Promise<FocusResult> {
  const run = await box.exec(["tongs-agents", "focus", pi.sessionId, "--json", "--client", client.tty]);
  if (run.stdout === "") throw new Error(`focus printed nothing (exit ${run.code}): ${run.stderr}`);
  const result = JSON.parse(run.stdout) as FocusResult;
  expect(result).toMatchObject({ state: "complete", backend: "tmux", session: { harness: "pi", pid: pi.pid } });
  expect(run.code).toBe(0);
  return result;
}

/** The attached client shows Pi's pane: tmux says so, and the terminal cursor is where Pi's cursor is. */
async function expectClientShowsPi(): Promise<string> {
  expect(await lab.paneOf(client)).toBe(pi.pane);
  const seen = await lab.seen(client);
  expect(seen.cursor).toEqual(await lab.expectedCursor(pi.pane));
  return seen.text;
}

/** Type a prompt as the user would: into the terminal the attached client runs in. */
async function typeIntoClient(text: string): Promise<void> {
  await lab.text(client, text);
  await lab.keys(client, "Enter");
}

describe(`Pi ${PINNED_PI.package}@${PINNED_PI.version} in a container`, { timeout: 180_000 }, () => {
  beforeAll(async () => {
    box = await startBox(await requireImage({ agents: ["pi"] }));
    lab = new BoxTmuxLab(box);
    await prepareLab(box);
    evidence.addVersions(await boxVersions(box, PACKAGES));
    evidence.addVersions({
      pi: `${PINNED_PI.package} ${(await box.sh("pi --version")).trim()}`,
      "model provider": "synthetic (e2e/provider, openai-completions, 127.0.0.1 in the container)",
    });
    providerUrl = await startProvider(box, { slowMs: 3000, toolCommand: TOOL_COMMAND });
    await configurePi(box, providerUrl);
    await startWatcher(box);
    await lab.inner("new-session", "-d", "-s", "home", "-x", "120", "-y", "40");
    await box.sh(`mkdir -p ${PROJECT}`);
    await lab.inner("new-session", "-d", "-s", "work", "-x", "120", "-y", "40", "-c", PROJECT);
    client = await lab.attach("home");
  }, 900_000);

  afterAll(async () => {
    try {
      await lab?.stop();
      await box?.stop();
    } finally {
      evidence.untested(
        "Pi's older line (@mariozechner/pi-coding-agent 0.73.1) in a container",
        "the image carries the pinned current release only; 0.73.1 runs live on the host (test/live/pi.test.ts)",
      );
      evidence.write();
    }
  });

  it("runs the Pi release pinned for the live suites", async ({ task }) => {
    evidence.prove(task, {
      claim: `the image's Pi is the pinned ${PINNED_PI.package}@${PINNED_PI.version}`,
      kind: "live",
      how: "`pi --version` in the container; containers/recipe.ts and test/live/harnesses.json agree",
    });
    expect(AGENTS.pi).toEqual({ package: PINNED_PI.package, version: PINNED_PI.version });
    expect((await box.sh("pi --version")).trim()).toBe(PINNED_PI.version);
  });

  it("tongs-agents install --agent pi installs the bridge through `pi install`", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents install --agent pi` runs `pi install <package>/pi-bridge`: Pi's settings list the installed package's bridge, the ownership marker is written, doctor says installed",
      kind: "live",
      how: "the installed CLI and the real pi in the container; ~/.pi/agent/settings.json and tongs-agents.json read back; tongs-agents doctor --agent pi --json",
    });
    const install = await box.exec(["tongs-agents", "install", "--agent", "pi"]);
    expect(install.code, `${install.stdout}${install.stderr}`).toBe(0);
    expect(install.stdout).toContain(`ran: /usr/local/bin/pi install ${BRIDGE}`);
    const settings = JSON.parse(await box.sh(`cat ${PI_AGENT_DIR}/settings.json`)) as { packages: string[] };
    expect(settings.packages.map((entry) => posix.resolve(PI_AGENT_DIR, entry))).toEqual([BRIDGE]);
    expect(JSON.parse(await box.sh(`cat ${PI_AGENT_DIR}/tongs-agents.json`))).toMatchObject({
      owner: "tongs-agents",
      extension_path: BRIDGE,
      node_path: "/usr/local/bin/node",
    });
    const doctor = JSON.parse((await box.exec(["tongs-agents", "doctor", "--agent", "pi", "--json"])).stdout) as {
      harnesses: Record<string, unknown>[];
    };
    expect(doctor.harnesses[0]).toMatchObject({ harness: "pi", binary: "/usr/local/bin/pi", bridge: "installed", ok: true });
  });

  it("Pi started in a split pane reports started, with the real Pi process's PID and its pane", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "interactive Pi in a tmux pane reports `started`; the record's pid is the Pi process (comm pi, exe node, the pane's own process) and its terminal is that pane",
      kind: "live",
      how: "pi (with Pi's permission-gate example via -e) in a split of session work; the record history; /proc/<pid>/comm and exe; tmux pane_pid",
    });
    const env = Object.entries(PI_ENV).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    const command = ["exec", "pi", "-e", PERMISSION_GATE].map(shellQuote).join(" ");
    const [pane = "", pid = ""] = (
      await lab.inner("split-window", "-h", "-l", "80", "-t", "work:", "-c", PROJECT, ...env, "-P", "-F", "#{pane_id} #{pane_pid}", command)
    ).split(" ");
    Object.assign(pi, { pane, pid: Number(pid) });
    const started = await waitForState("Pi's session start", (entry) => entry.status === "started");
    pi.sessionId = started.session_id;
    await waitUntil(async () => (await lab.capture(pi.pane)).includes("fake-model"), "Pi's editor and footer", {
      explain: () => lab.capture(pi.pane),
    });
    expect(started).toMatchObject({ pid: pi.pid, detail: "session started", last_event: "pi.session-start" });
    expect((await box.sh(`cat /proc/${pi.pid}/comm`)).trim()).toBe("pi");
    expect((await box.sh(`readlink /proc/${pi.pid}/exe`)).trim()).toBe("/usr/local/bin/node");
    expect(await record()).toMatchObject({
      harness: "pi",
      identity: "emitter",
      status: "started",
      pid: pi.pid,
      cwd: PROJECT,
      stale: false,
      terminal: { env: { TMUX: expect.stringMatching(new RegExp(`^${INNER},\\d+,\\d+$`)), TMUX_PANE: pi.pane } },
    });
    const screen = await lab.capture(pi.pane);
    expect(screen).toContain("pi-bridge");
    expect(screen).toContain("permission-gate.ts");
  });

  it("focus selects Pi's exact pane on the attached client", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents focus <pi session> --client <tty>` switches the attached client from another session to Pi's pane in a split window (pane and cursor)",
      kind: "live",
      how: "a real client attached inside an outer tmux, on session home; after focus: list-clients, the outer pane's text and cursor",
    });
    expect(await lab.paneOf(client)).not.toBe(pi.pane);
    await focusPi();
    const text = await expectClientShowsPi();
    expect(text).toContain("fake-model");
  });

  it("a prompt typed into the client: running while the model answers, then idle", async ({ task }) => {
    evidence.prove(task, {
      claim: "a prompt reports running (processing prompt), then idle with the reply's first line",
      kind: "live",
      how: "`SLOW say hello` typed into the attached client's terminal (the provider holds the stream 3 s); the record history",
    });
    await typeIntoClient("SLOW say hello");
    await waitForState("running", (entry) => entry.status === "running" && entry.detail === "processing prompt");
    await waitForState("idle", (entry) => entry.status === "idle" && entry.detail === DEFAULT_TEXT);
    expect(await record()).toMatchObject({ status: "idle", detail: DEFAULT_TEXT, pid: pi.pid });
  });

  it("a tool call that asks for permission: waiting, focus shows the dialog, approving through the client runs the tool, then idle", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "a bash tool call held by a confirmation dialog reports waiting (with the dialog's title); focus brings the client to the dialog; approving it reports running (tool bash) while the tool runs, then idle",
      kind: "live",
      how: "Pi's own examples/extensions/permission-gate.ts asks before `rm -rf /tmp/pi-scratch; sleep 3` (the provider's tool call); the client is moved away first; Enter typed into the client approves; the scratch dir is gone after",
    });
    await box.sh(`mkdir -p ${SCRATCH}`);
    await lab.inner("switch-client", "-c", client.tty, "-t", "home");
    await lab.inner("send-keys", "-t", pi.pane, "-l", "please RUNTOOL now");
    await lab.inner("send-keys", "-t", pi.pane, "Enter");
    const waiting = await waitForState("waiting", (entry) => entry.status === "waiting");
    expect(waiting).toMatchObject({ pid: pi.pid, last_event: "pi.ui-prompt-start" });
    expect(waiting.detail).toMatch(WAITING_DETAIL);
    const listed = JSON.parse((await box.exec(["tongs-agents", "list", "--json"])).stdout) as { sessions: Record<string, unknown>[] };
    expect(listed.sessions[0]).toMatchObject({ harness: "pi", status: "waiting", pid: pi.pid });

    expect(await lab.paneOf(client)).not.toBe(pi.pane);
    await focusPi();
    const text = await expectClientShowsPi();
    expect(text).toContain("Dangerous command");
    expect(text).toContain("Allow?");
    expect(await box.exec(["test", "-d", SCRATCH])).toMatchObject({ code: 0 });

    await lab.keys(client, "Enter"); // "Yes" is the first choice
    await waitForState(
      "running the approved tool",
      (entry) => entry.status === "running" && entry.tool === "bash" && entry.last_event === "pi.ui-prompt-end",
    );
    await waitForState("idle after the tool", (entry) => entry.status === "idle" && entry.detail === FINAL_TEXT);
    expect(await box.exec(["test", "-d", SCRATCH])).toMatchObject({ code: 1 });
  });

  it("a provider error (HTTP 400) reports error", async ({ task }) => {
    evidence.prove(task, {
      claim: "a turn failed by the provider (HTTP 400) reports error with the provider's message",
      kind: "live",
      how: "`FAILAPI` typed into the client; the provider answers 400; the record",
    });
    await typeIntoClient("FAILAPI");
    const failed = await waitForState("error", (entry) => entry.status === "error");
    expect(failed.detail).toMatch(ERROR_DETAIL);
    expect(await record()).toMatchObject({ status: "error", pid: pi.pid });
  });

  it("Esc while the reply is held: idle, turn interrupted, as Esc ends in Claude Code and Codex; explain names the interruption", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "Esc in Pi's UI while the provider holds the reply ends the run (stopReason aborted): the record goes idle with `turn interrupted` (the state Esc leaves in Claude Code and Codex), not error; `tongs-agents explain` lists pi.agent-end from the bridge changing running -> idle with that detail",
      kind: "live",
      how: "`HOLD please` typed into Pi's pane (the provider holds every answer of that conversation); Escape sent with send-keys once the record is running; the record; tongs-agents explain --json",
    });
    const before = (await piHistory()).length;
    await lab.inner("send-keys", "-t", pi.pane, "-l", "HOLD please");
    await lab.inner("send-keys", "-t", pi.pane, "Enter");
    await waitUntil(async () => (await piHistory()).slice(before).some((entry) => entry.status === "running"), "running after the prompt", {
      explain: () => lab.capture(pi.pane),
    });
    await lab.inner("send-keys", "-t", pi.pane, "Escape");
    const interrupted = await waitForState("idle, interrupted", (entry) => entry.status === "idle" && entry.detail === "turn interrupted");
    expect(interrupted).toMatchObject({ pid: pi.pid, last_event: expect.stringMatching(/^pi\.agent-(end|settled)$/) });
    expect(await record()).toMatchObject({ status: "idle", detail: "turn interrupted", pid: pi.pid });
    const explained = await box.exec(["tongs-agents", "explain", pi.sessionId, "--json"]);
    const { entries } = JSON.parse(explained.stdout) as { entries: { source: string; event: string; status: string; change: string }[] };
    expect(entries).toContainEqual({
      at: expect.any(String),
      source: "bridge",
      event: "pi.agent-end",
      status: "idle",
      change: 'running -> idle; detail "turn interrupted"',
      recorded: true,
    });
    // Nothing is left held in the provider.
    await box.sh(`node -e "fetch('${providerUrl}/control/release', { method: 'POST' }).then((r) => r.text()).then(console.log)"`);
  });

  it("/quit reports ended and Pi exits", async ({ task }) => {
    evidence.prove(task, {
      claim: "/quit reports ended (session closed) before Pi exits",
      kind: "live",
      how: "`/quit` typed into the client; the record; /proc/<pid> gone or a zombie (see the libutempter note)",
    });
    await typeIntoClient("/quit");
    await waitForState("ended", (entry) => entry.status === "ended");
    // Exited: gone, or a zombie. Debian's tmux is built with libutempter, whose own SIGCHLD handler, in place while
    // tmux removes the closed pane's utmp record, can swallow the SIGCHLD of a pane process that exits just after
    // closing its terminal (as Pi does); tmux then reaps it only at the next SIGCHLD (tmux/tmux#311, #4559). Seen in 2 of
    // 8 runs of this suite: the pane gone, Pi left as `[pi] <defunct>` under the tmux server (tmux 3.3a-3).
    const exited = `test ! -e /proc/${pi.pid} || grep -q '^State:[[:space:]]*Z' /proc/${pi.pid}/status`;
    await waitUntil(async () => (await box.exec(["sh", "-c", exited])).code === 0, "Pi to exit", {
      explain: async () =>
        `${await box.sh(`ps -eo pid,ppid,stat,wchan:24,comm,args; grep -E '^(State|Threads)' /proc/${pi.pid}/status; ls -l /proc/${pi.pid}/fd; cat /proc/${pi.pid}/task/*/wchan; echo`)}\npanes:\n${(await lab.tryTmux(INNER, "list-panes", "-a", "-F", "#{pane_id} #{pane_pid} #{pane_dead}")).stdout}\n${(await lab.tryTmux(INNER, "capture-pane", "-p", "-t", pi.pane)).stdout}`,
    });
    expect(await record()).toMatchObject({ status: "ended", detail: "session closed", last_event: "pi.session-shutdown", pid: pi.pid });
  });

  it("went through exactly the expected states, every one reported by the Pi process", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "the whole session's states, in order: started, running, idle, running, waiting, running (tool bash), idle, error, running, idle (turn interrupted, Esc), ended; every state carries the Pi process's PID and one session id",
      kind: "live",
      how: "the watcher's log of every record change in the container (inotify plus 100 ms polls); fleeting states between two events ms apart may be absent",
    });
    const history = await piHistory();
    expect(new Set(history.map((entry) => entry.session_id))).toEqual(new Set([pi.sessionId]));
    expect(new Set(history.map((entry) => entry.pid))).toEqual(new Set([pi.pid]));
    expectTimeline(states(history), [
      { status: "started", detail: "session started" },
      { status: "running", detail: "processing prompt" },
      { status: "idle", detail: DEFAULT_TEXT },
      { status: "running", detail: "processing prompt" },
      { status: "running", detail: "bash", tool: "bash", fleeting: true }, // tool_execution_start, just before the dialog
      { status: "waiting", detail: WAITING_DETAIL },
      { status: "running", detail: "bash", tool: "bash" },
      { status: "idle", detail: FINAL_TEXT },
      { status: "running", detail: "processing prompt", fleeting: true }, // the 400 comes back at once
      { status: "error", detail: ERROR_DETAIL },
      { status: "running", detail: "processing prompt" },
      { status: "idle", detail: "turn interrupted" },
      { status: "ended", detail: "session closed" },
    ]);
  });
});
