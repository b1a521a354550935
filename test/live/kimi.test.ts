// Live: the real interactive Kimi Code (pinned in harnesses.json) with the hooks `tongs-agents install --agent kimi`
// writes, in a private tmux server, offline against the synthetic provider on 127.0.0.1 (OpenAI Chat Completions):
// started, running, the Bash tool, waiting on the real approval dialog, running after approval, idle, error (provider
// 400, StopFailure), idle after Esc (Interrupt), /clear (a new session in the same process), ended (/exit), and a
// resumed session (`kimi -r <id>`): one live record per running process, with the native session id.
import { execFileSync } from "node:child_process";
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

interface Shown {
  session_id: string;
  identity: string;
  status: string;
  detail: string;
  tool: string;
  pid: number;
  terminal: { env: Record<string, string> };
}

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(what: string, probe: () => Promise<T | undefined>, explain: () => Promise<string>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${await explain()}`);
    await sleep(250);
  }
}

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

    const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
    const screen = (target: string) => {
      try {
        return tmux("capture-pane", "-p", "-J", "-t", target);
      } catch (error) {
        return `(no screen: ${String(error)})`;
      }
    };
    const env = Object.entries(world.env).map(([key, value]) => `${key}=${value}`);
    const launch = 'exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" "$@"';
    const start = (window: string, ...args: string[]) => {
      const where =
        window === "first"
          ? ["new-session", "-d", "-s", "live", "-n", window, "-x", "150", "-y", "45"]
          : ["new-window", "-t", "live", "-n", window];
      tmux(...where, "-c", project, "sh", "-c", launch, "sh", ...env, "kimi", ...args);
      if (window === "first") tmux("set-option", "-g", "remain-on-exit", "on");
      return tmux("display-message", "-p", "-t", `live:${window}`, "#{pane_id}").trim();
    };
    const sessions = async () =>
      (JSON.parse((await runCliProcess(["list", "--all", "--json"], world.env)).stdout) as { sessions: Shown[] }).sessions.filter(
        (session) => session.identity === "process",
      );
    const live = async () => (await sessions()).filter((session) => session.status !== "ended");
    const explain = (window: string) => async () => `${screen(`live:${window}`)}\n${JSON.stringify(await sessions(), null, 1)}`;
    // Typed text, then Enter until the input box no longer holds it (the UI drops an Enter that comes too early).
    const type = async (window: string, text: string) => {
      const target = `live:${window}`;
      tmux("send-keys", "-t", target, "-l", text);
      await until(`"${text}" typed`, async () => (screen(target).includes(`> ${text}`) ? true : undefined), explain(window), 30_000);
      await until(
        `"${text}" sent`,
        async () => {
          await sleep(500);
          if (!screen(target).includes(`> ${text}`)) return true;
          tmux("send-keys", "-t", target, "Enter");
          await sleep(2000);
          return screen(target).includes(`> ${text}`) ? undefined : true;
        },
        explain(window),
        30_000,
      );
    };
    const state = (want: (session: Shown) => boolean) => async () => (await live()).find(want);

    const pane = start("first");
    // Kimi Code asks whether to trust the folder on its first start there: Enter takes "Trust this folder".
    await until(
      "the folder-trust question",
      async () => (screen("live:first").includes("Trust this folder") ? true : undefined),
      explain("first"),
    );
    tmux("send-keys", "-t", "live:first", "Enter");
    await until("the prompt", async () => (screen("live:first").includes("fake-model") ? true : undefined), explain("first"));
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
    await until("the dialog on screen", async () => (screen("live:first").includes("Approve once") ? true : undefined), explain("first"));
    tmux("send-keys", "-t", "live:first", "Enter");
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
    tmux("send-keys", "-t", "live:first", "Escape");
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
    start("resumed", "-r", first);
    await until("the resumed UI", async () => (screen("live:resumed").includes("fake-model") ? true : undefined), explain("resumed"));
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
