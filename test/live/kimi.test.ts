// Live: the real interactive Kimi Code (pinned in harnesses.json) with the hooks `tongs-agents install --agent kimi`
// writes, in a private tmux server, offline against the synthetic provider on 127.0.0.1 (OpenAI Chat Completions):
// started, running, the Bash tool, waiting on the real approval dialog, running after approval, idle, error (provider
// 400, StopFailure), idle after Esc (Interrupt), /clear (a new session in the same process), ended (/exit), and a
// resumed session (`kimi -r <id>`): one live record per running process, with the native session id.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startProvider } from "../../e2e/provider/server.mjs";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";
import { sleep, tmuxUi, until, type ShownSession } from "./tmux-ui.ts";

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
beforeEach(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  // A command that changes something, so that Kimi Code asks before running it; SLOW holds a reply for Esc.
  provider = await startProvider({ port: 0, toolCommand: "touch approved", slowMs: 4000 });
});
afterEach(async () => {
  await stopTmuxServer(socket);
  await provider.stop();
  sandbox.cleanup();
});

const { package: PACKAGE, version: VERSION } = HARNESS_PACKAGES.kimi;

describe(`Kimi Code ${PACKAGE} ${VERSION} (live, interactive in tmux)`, () => {
  it("every state from the installed hooks; /clear and resume keep one live record per process", { timeout: 300_000 }, async () => {
    const world = liveWorld(sandbox, ROOT, [harnessBinDir("kimi")], { TONGS_AGENTS_DEBUG: "1" });
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
    const project = join(sandbox.root, "project");
    mkdirSync(project);

    const ui = tmuxUi({ socket, project, world, bin: "kimi", inputMark: "> " });
    const { sessions, live, screen, explain, type } = ui;
    const state = (want: (session: ShownSession) => boolean) => async () => (await live()).find(want);

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
    const waiting = await until(
      "the approval dialog",
      state((session) => session.status === "waiting"),
      explain("first"),
    );
    expect(waiting).toMatchObject({ detail: "permission: Bash", terminal: { env: { TMUX_PANE: pane } } });
    expect(readFileSync(`/proc/${waiting.pid}/comm`, "utf8").trim()).toBe("kimi-code");
    expect(existsSync(join(project, "approved"))).toBe(false);
    await until("the dialog on screen", async () => (screen("first").includes("Approve once") ? true : undefined), explain("first"));
    ui.keys("first", "Enter");
    const idle = await until(
      "the end of the turn",
      state((session) => session.status === "idle"),
      explain("first"),
    );
    expect(existsSync(join(project, "approved"))).toBe(true);
    expect(idle.session_id).toBe(waiting.session_id);
    const first = waiting.session_id;
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

    // Esc while the reply is held: Interrupt -> idle, as Esc ends in Claude Code and Codex.
    await type("first", "SLOW hello");
    await until(
      "running",
      state((session) => session.status === "running"),
      explain("first"),
    );
    ui.keys("first", "Escape");
    const interrupted = await until(
      "idle after Esc",
      state((session) => session.detail === "turn interrupted"),
      explain("first"),
    );
    expect(interrupted).toMatchObject({ status: "idle", session_id: first });

    // The provider's 400: StopFailure -> error, in Kimi Code's own words.
    await type("first", "FAILAPI please");
    const failed = await until(
      "the failed turn",
      state((session) => session.status === "error"),
      explain("first"),
    );
    expect(failed).toMatchObject({ session_id: first, detail: "turn failed: APIStatusError: 400 synthetic failure requested by FAILAPI" });

    // /clear: a new session in the same process; the old one ends, one live record remains.
    await type("first", "/clear");
    const cleared = await until(
      "the new session",
      state((session) => session.session_id !== first),
      explain("first"),
    );
    expect(cleared).toMatchObject({ status: "started", pid: waiting.pid });
    expect((await live()).map((session) => session.session_id)).toEqual([cleared.session_id]);
    expect((await sessions()).find((session) => session.session_id === first)).toMatchObject({ status: "ended" });

    await type("first", "/exit");
    await until("SessionEnd", async () => ((await live()).length === 0 ? true : undefined), explain("first"));
    expect((await sessions()).find((session) => session.session_id === cleared.session_id)).toMatchObject({
      status: "ended",
      detail: "session closed",
    });

    // Resume the first conversation in a new process: its native id, that process, nothing else live.
    ui.start("resumed", "-r", first);
    await until("the resumed UI", async () => (screen("resumed").includes("fake-model") ? true : undefined), explain("resumed"));
    await sleep(1000);
    await type("resumed", "say hello");
    // The resumed history ends with FAILAPI, which Kimi Code sends again with the new prompt: the provider fails it.
    const resumed = await until(
      "the resumed session",
      state((session) => session.session_id === first),
      explain("resumed"),
    );
    expect(resumed.pid).not.toBe(waiting.pid);
    expect((await live()).map((session) => [session.session_id, session.pid])).toEqual([[first, resumed.pid]]);
  });
});
