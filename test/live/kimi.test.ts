// Live: the real interactive Kimi Code (pinned in harnesses.json) with the hooks `tongs-agents install --agent kimi`
// writes, in a private tmux server, offline against the synthetic provider on 127.0.0.1 (OpenAI Chat Completions):
// started, running, the Bash tool, waiting on the real approval dialog, running after approval, idle, error (provider
// 400, StopFailure), idle after Esc (Interrupt), /clear (a new session in the same process), ended (/exit), and a
// resumed session (`kimi -r <id>`): one live record per running process, with the native session id. Each step is a
// test of its own, in order, on the one UI, and proves one claim in .cache/evidence/kimi.json (docs/evidence.md).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvidence } from "../../e2e/evidence.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import { installersFor } from "../../src/harnesses/installers.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";
import { sleep, tmuxUi, until, type ShownSession } from "./tmux-ui.ts";

const { package: PACKAGE, version: VERSION } = HARNESS_PACKAGES.kimi;

const evidence = createEvidence("kimi", `Kimi Code ${VERSION} interactive in tmux on this machine: lifecycle through the installed hooks`, {
  containers: false,
});
evidence.addVersions({ [`kimi (npm ${PACKAGE})`]: VERSION });
const HOW = `kimi ${VERSION} in a private tmux server, driven by send-keys; hooks written by tongs-agents install --agent kimi; synthetic OpenAI Chat Completions provider on 127.0.0.1; records read with tongs-agents list and explain`;

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
let world: InstallContext;
let project: string;
let ui: ReturnType<typeof tmuxUi>;
/** The first session's record while it waited on the dialog; its native id. */
let waiting: ShownSession;
let first: string;
let cleared: ShownSession;
const state = (want: (session: ShownSession) => boolean) => async () => (await ui.live()).find(want);

beforeAll(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  // A command that changes something, so that Kimi Code asks before running it; SLOW holds a reply for Esc.
  provider = await startProvider({ port: 0, toolCommand: "touch approved", slowMs: 4000 });
});
afterAll(async () => {
  await stopTmuxServer(socket);
  await provider.stop();
  sandbox.cleanup();
  evidence.untested(
    "focus on a Kimi Code record",
    "not driven by this suite: the record names its tmux pane (first row); focus by pane is proven for tmux by the tmux-focus suite",
  );
  evidence.write();
});

describe(`Kimi Code ${PACKAGE} ${VERSION} (live, interactive in tmux)`, { timeout: 180_000 }, () => {
  it("install; a tool call waits on the real approval dialog: waiting, from the kimi-code process in its pane", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents install --agent kimi` writes hooks the real UI runs; on the Bash tool's approval dialog the record is `waiting` (permission: Bash) and the command has not run; its PID is the `kimi-code` process and it names the pane",
      kind: "live",
      how: HOW,
    });
    world = liveWorld(sandbox, ROOT, [harnessBinDir("kimi")], { TONGS_AGENTS_DEBUG: "1" });
    expect((await runInstaller(world, { harnesses: await installersFor(["kimi"]), mode: "install", dryRun: false, options: [] })).ok).toBe(
      true,
    );
    const config = join(world.env.KIMI_CODE_HOME as string, "config.toml");
    // The provider, ahead of what install wrote (Kimi Code's config keys are snake_case in TOML).
    const provided = [
      'default_model = "fake"',
      "telemetry = false",
      "",
      "[providers.fake]",
      'type = "openai"',
      'api_key = "not-a-key"',
      `base_url = "${provider.url}/v1"`,
      "",
      "[models.fake]",
      'provider = "fake"',
      'model = "fake-model"',
      "max_context_size = 128000",
      "",
    ].join("\n");
    writeFileSync(config, `${provided}\n${readFileSync(config, "utf8")}`);
    project = join(sandbox.root, "project");
    mkdirSync(project);

    ui = tmuxUi({ socket, project, world, bin: "kimi", inputMark: "> " });
    const { screen, explain, type } = ui;
    const pane = ui.start("first");
    // Kimi Code asks whether to trust the folder on its first start there: Enter takes "Trust this folder".
    await until(
      "the folder-trust question",
      async () => (screen("first").includes("Trust this folder") ? true : undefined),
      explain("first"),
    );
    ui.keys("first", "Enter");
    await until("the prompt", async () => (screen("first").includes("fake-model") ? true : undefined), explain("first"));
    await sleep(1000);

    // SessionStart comes with the first prompt; the tool asks first.
    await type("first", "please RUNTOOL");
    waiting = await until(
      "the approval dialog",
      state((session) => session.status === "waiting"),
      explain("first"),
    );
    expect(waiting).toMatchObject({ detail: "permission: Bash", terminal: { env: { TMUX_PANE: pane } } });
    expect(readFileSync(`/proc/${waiting.pid}/comm`, "utf8").trim()).toBe("kimi-code");
    expect(existsSync(join(project, "approved"))).toBe(false);
  });

  it("approved: the tool runs, the turn ends idle, after started, running, the tool, waiting, running", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "after approval (Enter on Approve once) the command runs and the turn ends `idle`; `explain` shows exactly SessionStart -> started, UserPromptSubmit -> running, PreToolUse -> running, PermissionRequest -> waiting, PostToolUse -> running, Stop -> idle for that session",
      kind: "live",
      how: HOW,
    });
    const { screen, explain } = ui;
    await until("the dialog on screen", async () => (screen("first").includes("Approve once") ? true : undefined), explain("first"));
    ui.keys("first", "Enter");
    const idle = await until(
      "the end of the turn",
      state((session) => session.status === "idle"),
      explain("first"),
    );
    expect(existsSync(join(project, "approved"))).toBe(true);
    expect(idle.session_id).toBe(waiting.session_id);
    first = waiting.session_id;
    const history = JSON.parse((await runCliProcess(["explain", first, "--json"], world.env)).stdout) as {
      entries: { event: string; status: string }[];
    };
    expect(history.entries.map((entry) => `${entry.event} ${entry.status}`)).toEqual([
      "kimi.session-start started",
      "kimi.prompt-submit running",
      "kimi.tool-use running",
      "kimi.permission-request waiting",
      "kimi.tool-done running",
      "kimi.stop idle",
    ]);
  });

  it("Esc while the reply is held: idle, the turn interrupted", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Esc while the provider holds the reply: Interrupt -> `idle` (turn interrupted), the same session, as Esc ends in Claude Code and Codex",
      kind: "live",
      how: `${HOW}; the prompt says SLOW, the test presses Escape once the record is running`,
    });
    await ui.type("first", "SLOW hello");
    await until(
      "running",
      state((session) => session.status === "running"),
      ui.explain("first"),
    );
    ui.keys("first", "Escape");
    const interrupted = await until(
      "idle after Esc",
      state((session) => session.detail === "turn interrupted"),
      ui.explain("first"),
    );
    expect(interrupted).toMatchObject({ status: "idle", session_id: first });
  });

  it("a provider 400: error, in Kimi Code's own words", async ({ task }) => {
    evidence.prove(task, {
      claim: "an HTTP 400 from the provider: StopFailure -> `error` with Kimi Code's own message",
      kind: "live",
      how: `${HOW}; the prompt says FAILAPI, the provider answers 400`,
    });
    await ui.type("first", "FAILAPI please");
    const failed = await until(
      "the failed turn",
      state((session) => session.status === "error"),
      ui.explain("first"),
    );
    expect(failed).toMatchObject({ session_id: first, detail: "turn failed: APIStatusError: 400 synthetic failure requested by FAILAPI" });
  });

  it("/clear: a new session in the same process; the old one ends, one live record remains", async ({ task }) => {
    evidence.prove(task, {
      claim: "/clear in the running UI: a new session id, `started`, with the same PID; the old session `ended`; one live record",
      kind: "live",
      how: HOW,
    });
    await ui.type("first", "/clear");
    cleared = await until(
      "the new session",
      state((session) => session.session_id !== first),
      ui.explain("first"),
    );
    expect(cleared).toMatchObject({ status: "started", pid: waiting.pid });
    expect((await ui.live()).map((session) => session.session_id)).toEqual([cleared.session_id]);
    expect((await ui.sessions()).find((session) => session.session_id === first)).toMatchObject({ status: "ended" });
  });

  it("/exit: ended", async ({ task }) => {
    evidence.prove(task, {
      claim: "/exit: SessionEnd -> `ended` (session closed); nothing left live",
      kind: "live",
      how: HOW,
    });
    await ui.type("first", "/exit");
    await until("SessionEnd", async () => ((await ui.live()).length === 0 ? true : undefined), ui.explain("first"));
    expect((await ui.sessions()).find((session) => session.session_id === cleared.session_id)).toMatchObject({
      status: "ended",
      detail: "session closed",
    });
  });

  it("resume (`kimi -r <id>`): the native id, the new process, nothing else live", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`kimi -r <session id>` in a new window: the record has the first session's native id and the new process's PID; it is the only live record",
      kind: "live",
      how: HOW,
    });
    const { screen, explain } = ui;
    ui.start("resumed", "-r", first);
    await until("the resumed UI", async () => (screen("resumed").includes("fake-model") ? true : undefined), explain("resumed"));
    await sleep(1000);
    await ui.type("resumed", "say hello");
    // The resumed history ends with FAILAPI, which Kimi Code sends again with the new prompt: the provider fails it.
    const resumed = await until(
      "the resumed session",
      state((session) => session.session_id === first),
      explain("resumed"),
    );
    expect(resumed.pid).not.toBe(waiting.pid);
    expect((await ui.live()).map((session) => [session.session_id, session.pid])).toEqual([[first, resumed.pid]]);
  });
});
