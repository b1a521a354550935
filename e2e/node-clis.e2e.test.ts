// Gemini CLI and Qwen Code in a container, live: the releases pinned in test/live/harnesses.json, each run
// interactively in tmux panes against the synthetic provider on 127.0.0.1 inside the same container (Gemini: its own
// API, GOOGLE_GEMINI_BASE_URL; Qwen: OpenAI Chat Completions), with the hooks `tongs-agents install --agent <id>` writes
// (run there, as a user would). One driver for both: they are node scripts with Claude-shaped command hooks. Every state
// a record goes through is logged by the watcher in the container (e2e/fixtures/record-watch.mjs); the suite polls for
// records, so it holds whether the installed hook applies an event itself or hands it to the shim's worker.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../containers/recipe.ts";
import type { FocusResult } from "../src/focus/result.ts";
import { requireImage, startBox, type Box } from "./containers.ts";
import { REPO_ROOT } from "./env.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import { startProvider, startWatcher, type HistoryEntry } from "./pi-box.ts";
import { FAILING_COMMAND, FINAL_TEXT } from "./provider/script.mjs";
import { expectTimeline, historyOf, listSessions, showRecord, states, summary, waitForState, type Expected } from "./record-timeline.ts";
import { BoxTmuxLab, INNER, prepareLab, waitUntil, type AttachedClient } from "./tmux-focus-lab.ts";

type CliId = "gemini" | "qwen";
const HARNESSES = JSON.parse(readFileSync(join(REPO_ROOT, "test", "live", "harnesses.json"), "utf8")) as Record<
  CliId,
  { package: string; version: string }
>;
const PINNED = {
  gemini: { package: HARNESSES.gemini.package, version: HARNESSES.gemini.version },
  qwen: { package: HARNESSES.qwen.package, version: HARNESSES.qwen.version },
};
const PACKAGES = ["tmux", "procps", "bash", "catatonit"];
const OFF = { privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, general: { enableAutoUpdate: false } };
/** What the approval dialog of both CLIs says (Qwen is a fork of Gemini CLI). */
const DIALOG = "Allow execution";

interface Cli {
  readonly id: CliId;
  readonly name: string;
  /** The script the record's node process runs (node-script identity, src/core/node-script.ts). */
  readonly script: string;
  readonly settingsFile: string;
  /** Settings a user who finished set-up has, written before `tongs-agents install` adds its hooks. */
  readonly settings: Record<string, unknown>;
  readonly env: (url: string) => Record<string, string>;
  /** What a failed turn (HTTP 400) leaves, as the harness states it. */
  readonly failed: Expected;
  /** The dialog's state: Gemini's comes from its Notification (no tool named), Qwen's from PermissionRequest. */
  readonly waiting: Expected;
  /** The first session's states, in order, from the approval dialog to the failed turn (as seen in the container). */
  readonly afterDialog: readonly Expected[];
}

const CLIS: readonly Cli[] = [
  {
    id: "gemini",
    name: "Gemini CLI",
    script: "/usr/local/lib/node_modules/@google/gemini-cli/bundle/gemini.js",
    settingsFile: "/root/.gemini/settings.json",
    // A fixed model: "Auto" first asks a classifier model for JSON, which the synthetic provider does not script.
    settings: { security: { auth: { selectedType: "gemini-api-key" } }, model: { name: "gemini-2.5-flash" }, ...OFF },
    env: (url) => ({ GEMINI_API_KEY: "synthetic", GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_TRUST_WORKSPACE: "true" }),
    // Gemini CLI has no error event: a failed turn ends with AfterAgent like any other (shared/facts/harnesses.md).
    failed: { status: "idle", detail: "" },
    waiting: { status: "waiting", detail: "permission requested" },
    afterDialog: [
      { status: "running", detail: "run_shell_command finished", tool: "run_shell_command", fleeting: true },
      { status: "idle", detail: "" },
      { status: "running", detail: "processing prompt", fleeting: true },
      { status: "idle", detail: "" },
    ],
  },
  {
    id: "qwen",
    name: "Qwen Code",
    script: "/usr/local/lib/node_modules/@qwen-code/qwen-code/cli.js",
    settingsFile: "/root/.qwen/settings.json",
    // The interactive UI starts in "Auto mode" (a classifier approves what it deems safe); "default" ("Ask Permissions")
    // shows the real dialog for every shell command (its docs, bundled/qc-helper/docs/features/approval-mode.md).
    settings: {
      security: { auth: { selectedType: "openai" } },
      model: { name: "fake-model" },
      tools: { approvalMode: "default" },
      ...OFF,
    },
    env: (url) => ({ OPENAI_API_KEY: "synthetic", OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: "fake-model" }),
    failed: { status: "error", detail: "turn failed (API error)" },
    waiting: { status: "waiting", detail: "permission: run_shell_command", tool: "run_shell_command" },
    // Stop's idle carries the last message; idle_prompt's Notification follows; on the failed turn StopFailure and
    // idle_prompt come in either order (the error stands: docs/harness-facts.md).
    afterDialog: [
      { status: "running", detail: "run_shell_command", tool: "run_shell_command", fleeting: true },
      { status: "running", detail: "run_shell_command finished", tool: "run_shell_command", fleeting: true },
      { status: "running", detail: "processing prompt", fleeting: true },
      { status: "idle", detail: FINAL_TEXT },
      { status: "idle", detail: "waiting for the next prompt", fleeting: true },
      { status: "running", detail: "processing prompt", fleeting: true },
      { status: "idle", detail: "waiting for the next prompt", fleeting: true },
      { status: "error", detail: "turn failed (API error)" },
    ],
  },
];

const evidence = createEvidence(
  "node-clis",
  `Gemini CLI ${PINNED.gemini.version} and Qwen Code ${PINNED.qwen.version} interactive in tmux in a container: lifecycle through the installed hooks, and focus`,
);
let box: Box;
let lab: BoxTmuxLab;
let client: AttachedClient;
let providerUrl = "";

beforeAll(async () => {
  box = await startBox(await requireImage({ agents: ["gemini", "qwen", "opencode"] }));
  lab = new BoxTmuxLab(box);
  await prepareLab(box);
  evidence.addVersions(await boxVersions(box, PACKAGES));
  for (const cli of CLIS) evidence.addVersions({ [cli.id]: `${PINNED[cli.id].package} ${(await box.sh(`${cli.id} --version`)).trim()}` });
  evidence.addVersions({
    "model provider": "synthetic (e2e/provider: Gemini API and OpenAI chat completions, 127.0.0.1 in the container)",
  });
  providerUrl = await startProvider(box, { slowMs: 3000, toolCommand: "touch approved" });
  await startWatcher(box);
  await lab.inner("new-session", "-d", "-s", "home", "-x", "120", "-y", "40");
  await lab.inner("new-session", "-d", "-s", "work", "-x", "160", "-y", "45");
  client = await lab.attach("home");
}, 900_000);

afterAll(async () => {
  try {
    await lab?.stop();
    await box?.stop();
  } finally {
    evidence.write();
  }
});

/** What Gemini CLI and Qwen Code show in an empty input. */
const EMPTY_INPUT = "Type your message";

describe.each(CLIS)("$name in a container", { timeout: 180_000 }, (cli) => {
  const project = `/work/${cli.id}`;
  const run = { pane: "", pid: 0, sessionId: "" };
  const screen =
    (pane = run.pane) =>
    () =>
      lab.capture(pane);
  const ofSession = (entry: HistoryEntry) => entry.session_id === run.sessionId;
  const waitFor = (what: string, test: (entry: HistoryEntry) => boolean, pane = run.pane) =>
    waitForState(box, cli.id, what, test, screen(pane));

  /**
   * Type the text, wait until the CLI's input shows it, then Enter. Keys sent before the input is ready are lost (seen
   * with Qwen Code starting under load: its input still empty a minute later): while the input shows its empty
   * placeholder 5 s after the last try, the text is sent again. A part of it shown is never sent twice.
   */
  async function type(pane: string, text: string): Promise<void> {
    await lab.inner("send-keys", "-t", pane, "-l", text);
    let sent = Date.now();
    const typed = async () => {
      const shown = await lab.capture(pane);
      if (shown.includes(text)) return true;
      if (Date.now() - sent > 5000 && shown.includes(EMPTY_INPUT)) {
        await lab.inner("send-keys", "-t", pane, "-l", text);
        sent = Date.now();
      }
      return false;
    };
    await waitUntil(typed, `"${text}" typed`, { explain: screen(pane) });
    await lab.inner("send-keys", "-t", pane, "Enter");
  }

  /** Start the CLI in a new window of session work; it reports started at once (SessionStart fires at launch). */
  async function start(known: ReadonlySet<string>): Promise<{ pane: string; entry: HistoryEntry }> {
    const env = Object.entries(cli.env(providerUrl)).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    const pane = await lab.inner("new-window", "-t", "work:", "-c", project, ...env, "-P", "-F", "#{pane_id}", `exec ${cli.id}`);
    const entry = await waitFor("started", (e) => e.status === "started" && !known.has(e.session_id), pane);
    return { pane, entry };
  }

  it(`runs the pinned ${PINNED[cli.id].package}@${PINNED[cli.id].version}; install writes its hooks and doctor finds them current`, async ({
    task,
  }) => {
    evidence.prove(task, {
      claim: `the image's ${cli.name} is the pinned ${PINNED[cli.id].package}@${PINNED[cli.id].version}; \`tongs-agents install --agent ${cli.id}\` adds our hooks to ${cli.settingsFile} (the user's settings kept) and doctor says every hook is current`,
      kind: "live",
      how: `\`${cli.id} --version\`; the installed CLI in the container; the settings file read back; tongs-agents doctor --agent ${cli.id} --json`,
    });
    expect(AGENTS[cli.id]).toEqual(PINNED[cli.id]);
    expect(await box.sh(`${cli.id} --version`)).toContain(PINNED[cli.id].version);
    await box.sh(`mkdir -p "$1" "$(dirname "$2")"`, project, cli.settingsFile);
    await box.container.copyContentToContainer([{ content: `${JSON.stringify(cli.settings, null, 2)}\n`, target: cli.settingsFile }]);
    const install = await box.exec(["tongs-agents", "install", "--agent", cli.id]);
    expect(install.code, `${install.stdout}${install.stderr}`).toBe(0);
    const settings = JSON.parse(await box.sh(`cat ${cli.settingsFile}`)) as Record<string, unknown> & {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(settings).toMatchObject(cli.settings);
    expect(JSON.stringify(settings.hooks)).toContain(`--agent ${cli.id}`);
    const doctor = JSON.parse((await box.exec(["tongs-agents", "doctor", "--agent", cli.id, "--json"])).stdout) as {
      harnesses: { harness: string; ok: boolean; hooks: { status: string }[] }[];
    };
    expect(doctor.harnesses[0]).toMatchObject({ harness: cli.id, ok: true });
    expect(doctor.harnesses[0]?.hooks.every((hook) => hook.status === "current")).toBe(true);
  });

  it("started in a pane: started at launch, the record's pid the node process running the CLI's script in that pane", async ({ task }) => {
    evidence.prove(task, {
      claim: `${cli.name} started in a tmux pane reports started (SessionStart) at launch; the record's pid is the node process whose script is ${cli.script} (node-script identity), its cwd the project, its terminal that pane`,
      kind: "live",
      how: `\`${cli.id}\` in a new window of session work; the watcher's history; /proc/<pid>/cmdline and cwd; tongs-agents show --json`,
    });
    const { pane, entry } = await start(new Set());
    Object.assign(run, { pane, pid: entry.pid, sessionId: entry.session_id });
    const argv = (await box.sh(`tr '\\0' '\\n' < /proc/${run.pid}/cmdline`)).split("\n");
    expect(argv[0]).toMatch(/node$/);
    // The script argument (Gemini's is its bin link, /usr/local/bin/gemini), resolved the way the kernel would.
    const script = argv.slice(1).find((arg) => !arg.startsWith("-")) ?? "";
    expect((await box.sh(`readlink -f "$1"`, script)).trim()).toBe(cli.script);
    expect((await box.sh(`readlink /proc/${run.pid}/cwd`)).trim()).toBe(project);
    expect(await showRecord(box, run.sessionId)).toMatchObject({
      harness: cli.id,
      identity: "process",
      status: "started",
      pid: run.pid,
      cwd: project,
      terminal: { env: { TMUX: expect.stringMatching(new RegExp(`^${INNER},\\d+,\\d+$`)), TMUX_PANE: pane } },
    });
  });

  it("a shell tool call: running(tool), waiting on the real approval dialog, focus shows it, approving through the client runs it, then idle", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim: `a run_shell_command call reports waiting when ${cli.name}'s approval dialog opens (Gemini: running (tool run_shell_command) first, BeforeTool; Qwen: PermissionRequest, before any tool hook); focus brings an attached client to the pane (tmux list-clients); Enter typed into the client approves it; the tool runs, then idle`,
      kind: "live",
      how: "`please RUNTOOL` typed into the pane; the provider's tool call runs `touch approved`; the client is on another session first; the file exists only after approval",
    });
    await type(run.pane, "please RUNTOOL");
    // Gemini's BeforeTool fires before its dialog; Qwen's PermissionRequest fires before PreToolUse, once allowed.
    if (cli.id === "gemini")
      await waitFor("running(tool)", (e) => ofSession(e) && e.status === "running" && e.tool === "run_shell_command");
    const waiting = await waitFor("waiting", (e) => ofSession(e) && e.status === "waiting");
    expect(waiting).toMatchObject({ pid: run.pid });
    expect(waiting).toMatchObject({ detail: cli.waiting.detail, tool: cli.waiting.tool ?? "" });
    const dialog = async () => (await lab.capture(run.pane)).includes(DIALOG);
    await waitUntil(dialog, "the approval dialog", { explain: screen() });
    expect(await box.exec(["test", "-e", `${project}/approved`])).toMatchObject({ code: 1 });

    // list-clients reads each client's own pane (display-message -c without -t formats the most recent session's).
    const paneOfClient = () => lab.paneOf(client);
    // The client starts elsewhere (an earlier focus left it on session work, whose current window a new CLI took).
    await lab.inner("switch-client", "-c", client.tty, "-t", "home");
    expect(await paneOfClient()).not.toBe(run.pane);
    const focused = await box.exec(["tongs-agents", "focus", run.sessionId, "--json", "--client", client.tty]);
    expect(JSON.parse(focused.stdout || "{}") as FocusResult, focused.stderr).toMatchObject({
      state: "complete",
      backend: "tmux",
      session: { harness: cli.id, pid: run.pid },
    });
    expect(focused.code).toBe(0);
    expect(await paneOfClient()).toBe(run.pane);
    expect((await lab.seen(client)).text).toContain(DIALOG);

    // The dialog takes keys once drawn (Qwen drops a key pressed the moment it opens): press again, bounded, while the
    // dialog is still there (it goes the moment a key is taken).
    await lab.keys(client, "Enter");
    let presses = 1;
    await waitUntil(
      async () => {
        const done = (await historyOf(box, cli.id)).some((e) => ofSession(e) && e.status === "idle" && e.at > waiting.at);
        if (!done && presses < 10 && (await dialog())) {
          await new Promise((resolve) => setTimeout(resolve, 2000));
          if (await dialog()) {
            await lab.keys(client, "Enter");
            presses++;
          }
        }
        return done;
      },
      "idle after the tool",
      { timeoutMs: 90_000, explain: screen() },
    );
    expect(await box.exec(["test", "-e", `${project}/approved`])).toMatchObject({ code: 0 });
    await lab.waitForText(run.pane, FINAL_TEXT);
  });

  it(`a provider failure (HTTP 400): ${cli.failed.status}${cli.id === "gemini" ? " (Gemini CLI reports no error)" : ""}`, async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        cli.id === "gemini"
          ? 'a turn the provider fails (HTTP 400) ends idle: Gemini CLI fires no error event (its AfterAgent carries "[no response text]"), and we report only what it states'
          : "a turn the provider fails (HTTP 400) reports error (StopFailure)",
      kind: "live",
      how: "`FAILAPI please` typed into the pane; the provider answers 400 (its request log); the record",
    });
    const before = (await historyOf(box, cli.id)).filter(ofSession).length;
    await type(run.pane, "FAILAPI please");
    await waitUntil(
      async () =>
        (await box.sh(`node -e "fetch('${providerUrl}/control/requests').then(r=>r.text()).then(console.log)"`)).includes('"error"'),
      "the provider's 400",
      { timeoutMs: 90_000, explain: screen() },
    );
    // The states this turn added: the one it ended in is the harness's word on the failure.
    let entries: HistoryEntry[] = [];
    await waitUntil(
      async () => {
        entries = (await historyOf(box, cli.id)).filter(ofSession).slice(before);
        return entries.some((e) => e.status === cli.failed.status && e.detail === cli.failed.detail);
      },
      `${cli.failed.status} after the failed turn`,
      { timeoutMs: 90_000, explain: async () => `${summary(entries)}\n${await screen()()}` },
    );
    expect(entries.at(-1)).toMatchObject({ status: cli.failed.status, detail: cli.failed.detail, pid: run.pid });
    if (cli.id === "gemini") expect(entries.some((e) => e.status === "error")).toBe(false);
  });

  it(`a second ${cli.name} in the same directory is a second record`, async ({ task }) => {
    evidence.prove(task, {
      claim: `two ${cli.name} sessions in one directory stay two records, each with its own node process and pane`,
      kind: "live",
      how: `a second \`${cli.id}\` in another window with the same cwd; tongs-agents list --json; it is quit with /quit`,
    });
    const second = await start(new Set([run.sessionId]));
    expect(second.entry.pid).not.toBe(run.pid);
    const ours = (await listSessions(box)).filter((session) => session.harness === cli.id && session.identity === "process");
    expect(ours.map((session) => [session.session_id, session.pid, session.cwd]).sort()).toEqual(
      [
        [run.sessionId, run.pid, project],
        [second.entry.session_id, second.entry.pid, project],
      ].sort(),
    );
    expect(await showRecord(box, second.entry.session_id)).toMatchObject({ terminal: { env: { TMUX_PANE: second.pane } } });
    await type(second.pane, "/quit");
    await waitFor("the second session ended", (e) => e.session_id === second.entry.session_id && e.status === "ended", second.pane);
  });

  // Qwen Code fires PostToolUseFailure when a tool's result is an error: for its shell tool, an exit status of 2 or more
  // (isShellExitError in its 0.24.4 bundle). Gemini CLI has no such event.
  if (cli.id === "qwen")
    it("a tool that fails for real (a shell command exiting 2): running (run_shell_command failed, PostToolUseFailure), then idle", async ({
      task,
    }) => {
      evidence.prove(task, {
        claim:
          "a run_shell_command that exits 2 (`ls` of a missing path, which Qwen runs without asking: read-only) reports running (`run_shell_command`, PreToolUse), running (`run_shell_command failed`, PostToolUseFailure), running, then idle with the model's final reply, in exactly that order; a session of its own, quit after",
        kind: "live",
        how: `a third \`qwen\` in the project; \`please FAILTOOL\` typed; the provider's tool call runs \`${FAILING_COMMAND}\` (exit status 2); the watcher's history`,
      });
      const known = new Set((await historyOf(box, cli.id)).map((entry) => entry.session_id));
      const third = await start(known);
      const ofThird = (entry: HistoryEntry) => entry.session_id === third.entry.session_id;
      await type(third.pane, "please FAILTOOL");
      // `ls` is read-only: Qwen runs it without asking, even in "default" approval mode (seen live: no dialog).
      await waitFor("idle after the failed tool", (e) => ofThird(e) && e.status === "idle", third.pane);
      const history = states((await historyOf(box, cli.id)).filter(ofThird));
      expect(new Set(history.map((entry) => entry.pid))).toEqual(new Set([third.entry.pid]));
      expectTimeline(history, [
        { status: "started", detail: "session started" },
        { status: "running", detail: "processing prompt" },
        { status: "running", detail: "run_shell_command", tool: "run_shell_command", fleeting: true },
        { status: "running", detail: "run_shell_command failed", tool: "run_shell_command" },
        { status: "running", detail: "processing prompt", fleeting: true },
        { status: "idle", detail: FINAL_TEXT },
        { status: "idle", detail: "waiting for the next prompt", fleeting: true }, // idle_prompt, when it came already
      ]);
      await type(third.pane, "/quit");
      await waitFor("the third session ended", (e) => ofThird(e) && e.status === "ended", third.pane);
    });

  it("/quit reports ended, and the record went through exactly the expected states from the CLI's node process", async ({ task }) => {
    evidence.prove(task, {
      claim: `/quit reports ended (SessionEnd); the first session's states in order: started, running, ${cli.id === "gemini" ? "running (tool run_shell_command), " : ""}waiting, running (the tool), idle, running, ${cli.failed.status}, ended; every one from the same node process`,
      kind: "live",
      how: "`/quit` typed into the pane; the watcher's log of every record change (inotify plus 100 ms polls); fleeting states may be absent",
    });
    await type(run.pane, "/quit");
    await waitFor("ended", (e) => ofSession(e) && e.status === "ended");
    expect(await showRecord(box, run.sessionId)).toMatchObject({ status: "ended", pid: run.pid });
    const history = (await historyOf(box, cli.id)).filter(ofSession);
    expect(new Set(history.map((entry) => entry.pid))).toEqual(new Set([run.pid]));
    expectTimeline(states(history), [
      { status: "started", detail: "session started" },
      { status: "running", detail: "processing prompt" },
      { status: "running", detail: "run_shell_command", tool: "run_shell_command", fleeting: true },
      cli.waiting,
      ...cli.afterDialog,
      { status: "ended", detail: "session closed" },
    ]);
  });
});
