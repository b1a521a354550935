// Live: the real interactive Gemini CLI and Qwen Code (pinned in harnesses.json), each with the hooks
// `tongs-agents install` writes, in a private tmux server, offline against the synthetic provider on 127.0.0.1
// (Gemini: its own API; Qwen: OpenAI Chat Completions). One shared driver: started, running(tool), waiting on the real
// approval dialog, running after approval, idle, the provider failure (Qwen: error; Gemini states none: idle), Esc while
// a reply is held (idle; neither states the interruption), /clear (a new session in the same process), ended, and the cleared conversation resumed in a new process; the record's PID is the node process that runs the CLI's script (node-script identity), in the tmux pane.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEvidence } from "../../e2e/evidence.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import { nodeScriptArg, runsNodeScript } from "../../src/core/node-script.ts";
import { findHarness } from "../../src/harnesses/registry.ts";
import { DEBUG_LOG_FILE } from "../../src/store/paths.ts";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { listedSessions, liveWorld } from "./live-world.ts";
import { enterUntilSent, sleep, until as waitUntil } from "./tmux-ui.ts";

interface Shown {
  session_id: string;
  identity: string;
  status: string;
  detail: string;
  tool: string;
  pid: number;
  updated_at: string;
  last_event: string;
  terminal: { env: Record<string, string> };
}

interface NodeCli {
  readonly id: "gemini" | "qwen";
  readonly bin: string;
  readonly env: (url: string) => NodeJS.ProcessEnv;
  readonly settingsPath: (world: InstallContext) => string;
  readonly settings: Record<string, unknown>;
  /** Typed once the UI is up, before the first prompt. */
  readonly setup: string[];
  /** What the provider failure leaves: what the harness states. */
  readonly failed: [status: string, detail: string];
  /** The arguments that resume the conversation `id`, the latest of the project. */
  readonly resume: (id: string) => string[];
  /** What Esc while a reply is held leaves: [status, detail, last event], as the harness states it. */
  readonly escaped: [status: string, detail: string, event: string];
}

const OFF = { privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };
const CLIS: NodeCli[] = [
  {
    id: "gemini",
    bin: "gemini",
    env: (url) => ({ GEMINI_API_KEY: "not-a-key", GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_TRUST_WORKSPACE: "true" }),
    settingsPath: (world) => join(world.env.GEMINI_CLI_HOME as string, ".gemini", "settings.json"),
    // A fixed model: "Auto" first asks a classifier model for JSON, which the synthetic provider does not script.
    settings: {
      security: { auth: { selectedType: "gemini-api-key" } },
      model: { name: "gemini-2.5-flash" },
      general: { enableAutoUpdate: false },
      ...OFF,
    },
    setup: [],
    failed: ["idle", ""],
    // Esc ends the turn with AfterAgent, as any turn's end does: nothing says it was interrupted.
    escaped: ["idle", "", "gemini.stop"],
    // Gemini CLI resumes by index or "latest", not by id.
    resume: () => ["--resume", "latest"],
  },
  {
    id: "qwen",
    bin: "qwen",
    env: (url) => ({ OPENAI_API_KEY: "not-a-key", OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: "fake-model" }),
    settingsPath: (world) => join(world.env.QWEN_HOME as string, "settings.json"),
    settings: {
      security: { auth: { selectedType: "openai" } },
      model: { name: "fake-model" },
      general: { enableAutoUpdate: false },
      ...OFF,
    },
    // The interactive UI starts in "Auto mode": real permission dialogs need the default mode.
    setup: ["/approval-mode default"],
    failed: ["error", "turn failed (API error)"],
    // Esc fires no Stop: the Notification Qwen sends when its input is back says it waits for the next prompt.
    escaped: ["idle", "waiting for the next prompt", "qwen.notification"],
    resume: (id) => ["--resume", id],
  },
];

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
beforeEach(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  // A command that changes something, so that the CLI asks before running it.
  provider = await startProvider({ port: 0, toolCommand: "touch approved", slowMs: 15_000 });
});
afterEach(async () => {
  await stopTmuxServer(socket);
  await provider.stop();
  sandbox.cleanup();
});

/** tmux-ui.ts's wait, with this file's argument order (a timeout, then what to print on a timeout). */
const until = <T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  explain: () => string | Promise<string> = () => "",
): Promise<T> => waitUntil(what, probe, explain, timeoutMs);

const evidence = createEvidence(
  "node-cli-live",
  "Gemini CLI and Qwen Code interactive in tmux on this machine: Esc, /clear and resume through the installed hooks",
  { containers: false },
);
afterAll(() => void evidence.write());

describe.each(CLIS)("$id (live, interactive in tmux)", (cli) => {
  const version = HARNESS_PACKAGES[cli.id].version;
  it(
    `${HARNESS_PACKAGES[cli.id].package} ${version}: every state from the installed hooks, identity by node script, /clear and resume`,
    { timeout: 240_000 },
    async ({ task }) => {
      evidence.addVersions({ [`${cli.id} (npm ${HARNESS_PACKAGES[cli.id].package})`]: version });
      evidence.prove(task, {
        claim: `${cli.id === "gemini" ? "Gemini CLI" : "Qwen Code"} ${version}: started, waiting on its real approval dialog, running and idle after approval, the provider failure (${cli.failed.filter(Boolean).join(": ")}); Esc while a reply is held: ${cli.escaped[0]}${cli.escaped[1] ? ` (${cli.escaped[1]})` : ""}, nothing says the turn was interrupted; \`/clear\`: a new native session id in the same process, the old record ended, one live record; \`/quit\`: ended; the first conversation resumed in a new process (${cli.resume("<id>").join(" ")}): its own id, the only live record`,
        kind: "live",
        how: `${cli.bin} ${version} interactive in a private tmux server (send-keys), hooks from \`tongs-agents install --agent ${cli.id}\`; synthetic provider on 127.0.0.1; records read with tongs-agents list --json and explain`,
      });
      const world = liveWorld(sandbox, ROOT, [harnessBinDir(cli.id)], { ...cli.env(provider.url), TONGS_AGENTS_DEBUG: "1" });
      expect(
        (await runInstaller(world, { harnesses: await installersFor([cli.id]), mode: "install", dryRun: false, options: [] })).ok,
      ).toBe(true);
      const settingsPath = cli.settingsPath(world);
      const installed = JSON.parse(readFileSync(settingsPath, "utf8")) as Record<string, unknown>;
      writeFileSync(settingsPath, JSON.stringify({ ...cli.settings, ...installed }, null, 2));
      const project = join(sandbox.root, "project");
      mkdirSync(project);

      const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
      const screen = () => {
        try {
          return tmux("capture-pane", "-p", "-J", "-t", "live");
        } catch (error) {
          return `(no screen: ${String(error)})`;
        }
      };
      // The approval dialog (the hook fires as it opens; it takes keys once drawn).
      const dialog = () => screen().includes("Allow execution");
      const type = async (text: string) => {
        tmux("send-keys", "-t", "live", "-l", text);
        await until(`"${text}" typed`, () => (screen().includes(text) ? true : undefined), 30_000, screen);
        tmux("send-keys", "-t", "live", "Enter");
      };
      const env = Object.entries(world.env).map(([key, value]) => `${key}=${value}`);
      // Only the world's environment, plus the pane's own tmux variables (what a user's shell in tmux would pass on).
      const launch = 'exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" "$@"';
      // remain-on-exit: a CLI that exits early leaves its last screen for the diagnosis.
      tmux(
        "new-session",
        "-d",
        "-s",
        "live",
        "-x",
        "150",
        "-y",
        "45",
        "-c",
        project,
        "sh",
        "-c",
        launch,
        "sh",
        ...env,
        cli.bin,
        ";",
        "set-option",
        "-g",
        "remain-on-exit",
        "on",
      );
      const pane = tmux("display-message", "-p", "-t", "live", "#{pane_id}").trim();

      const listed = listedSessions<Shown>(world.env, ["--all"]);
      const sessions = async () => (await listed()).filter((session) => session.identity === "process");
      const shown = async () => (await sessions())[0];
      // On a timeout: the pane, every record (placeholders included), the hook's debug log, and the session's history.
      const debugLog = () => {
        try {
          return readFileSync(join(sandbox.stateDir, DEBUG_LOG_FILE), "utf8").slice(-6000);
        } catch {
          return "(no debug log)";
        }
      };
      const diagnose = async () =>
        `${screen()}\n${(await runCliProcess(["list", "--all", "--json"], world.env)).stdout}\n${debugLog()}\n${(await runCliProcess(["explain", (await shown())?.session_id ?? "", "--json"], world.env)).stdout}`;
      const state = (want: string) => async () => {
        const session = await shown();
        return session?.status === want ? session : undefined;
      };
      /** A prompt or command the hooks answer: typed, then Enter until the records say it went (one changed, or a new one). */
      const submit = async (text: string) => {
        const mark = async () => JSON.stringify((await sessions()).map((session) => [session.session_id, session.updated_at]));
        const before = await mark();
        await type(text);
        const enter = () => tmux("send-keys", "-t", "live", "Enter");
        await enterUntilSent(`"${text}"`, { before, mark, enter, dialogShown: dialog, explain: diagnose });
      };

      const started = await until("SessionStart", state("started"), 90_000, diagnose);
      // The record's process is the node running the CLI's own script, in this pane.
      const argv = readFileSync(`/proc/${started.pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      expect(runsNodeScript(started.pid, argv, findHarness(cli.id)?.nodeScripts ?? [])).toBe(true);
      expect(readlinkSync(`/proc/${started.pid}/cwd`)).toBe(project);
      expect(started.terminal.env.TMUX_PANE).toBe(pane);
      expect(nodeScriptArg(argv)).toBeDefined();
      await sleep(1500);
      for (const line of cli.setup) await type(line);

      await submit("please RUNTOOL");
      const waiting = await until("the approval dialog", state("waiting"), 60_000, diagnose);
      expect(waiting.detail).toMatch(/^permission/);
      expect(existsSync(join(project, "approved"))).toBe(false);
      // The dialog takes keys once drawn (Qwen ignores a key pressed at once).
      await until("the dialog on screen", () => (dialog() ? true : undefined), 30_000, screen);
      await sleep(1000);
      tmux("send-keys", "-t", "live", "Enter");
      let pressed = Date.now();
      const idle = await until(
        "the end of the turn",
        async () => {
          const session = await state("idle")();
          // A key the dialog dropped: the dialog is still there seconds later (it goes the moment a key is taken).
          if (!session && dialog() && Date.now() - pressed > 5000) {
            tmux("send-keys", "-t", "live", "Enter");
            pressed = Date.now();
          }
          return session;
        },
        60_000,
        diagnose,
      );
      expect(existsSync(join(project, "approved"))).toBe(true);
      expect(idle.session_id).toBe(started.session_id);
      const history = JSON.parse((await runCliProcess(["explain", started.session_id, "--json"], world.env)).stdout) as {
        entries: { event: string; status: string }[];
      };
      const states = history.entries.map((entry) => `${entry.event} ${entry.status}`);
      expect(states).toContain(`${cli.id}.${cli.id === "qwen" ? "tool-approved" : "tool-done"} running`);

      // Esc while the reply is held (SLOW): the turn is cancelled; the record says what the harness states. Before the
      // provider failure: a prompt that got no reply is sent again with the next one (the next turn would fail at once).
      await submit("SLOW hello");
      await until(
        "running before Esc",
        async () => {
          const session = await shown();
          return session?.status === "running" && session.updated_at !== idle.updated_at ? session : undefined;
        },
        60_000,
        diagnose,
      );
      tmux("send-keys", "-t", "live", "Escape");
      const escaped = await until(
        "the state after Esc",
        async () => {
          const session = await shown();
          return session && session.status !== "running" ? session : undefined;
        },
        60_000,
        diagnose,
      );
      expect([escaped.status, escaped.detail, escaped.last_event]).toEqual(cli.escaped);
      // Qwen puts the cancelled prompt back into the input: clear it, as a user would, before the next command.
      tmux("send-keys", "-t", "live", "End");
      tmux("send-keys", "-t", "live", "C-u");
      await sleep(500);

      const before = await shown();
      await submit("FAILAPI please");
      const failedRequest = () => (provider.requests.some((request) => request.decision === "error") ? true : undefined);
      await until("the provider's 400", failedRequest);
      const failed = await until(
        "the failed turn",
        async () => {
          const session = await shown();
          return session && session.updated_at !== before?.updated_at && session.status === cli.failed[0] ? session : undefined;
        },
        60_000,
        diagnose,
      );
      expect([failed.status, failed.detail]).toEqual(cli.failed);

      // /clear: a new conversation in the same process. One live record, the new native id; the old one ended.
      const live = async () => (await sessions()).filter((session) => session.status !== "ended");
      await submit("/clear");
      const cleared = await until(
        "the new session after /clear",
        async () => (await live()).find((session) => session.session_id !== started.session_id),
        60_000,
        diagnose,
      );
      expect(cleared.pid).toBe(started.pid);
      await until("one live record", async () => ((await live()).length === 1 ? true : undefined), 30_000, diagnose);
      expect((await sessions()).find((session) => session.session_id === started.session_id)?.status).toBe("ended");

      await submit("/quit");
      await until("SessionEnd", async () => ((await live()).length === 0 ? true : undefined), 60_000, diagnose);
      expect((await sessions()).find((session) => session.session_id === cleared.session_id)?.status).toBe("ended");

      // Resume the first conversation in a new process (its window becomes the active one). The one after /clear holds
      // no message, so it is not kept: the first is also the project's latest.
      tmux("new-window", "-t", "live", "-c", project, "sh", "-c", launch, "sh", ...env, cli.bin, ...cli.resume(started.session_id));
      const reopened = await until(
        "SessionStart of the resumed process",
        async () => (await live()).find((session) => session.pid !== started.pid),
        90_000,
        diagnose,
      );
      expect(reopened.session_id).toBe(started.session_id);
      await sleep(1500);
      await submit("say hello");
      const resumed = await until(
        "the resumed turn's end",
        // The resumed history ends with FAILAPI, which got no reply: sent again with the new prompt, the provider fails
        // it, so the turn ends as a failed turn does (Qwen: error; Gemini: idle).
        async () => (await live()).find((session) => session.pid !== started.pid && session.status === cli.failed[0]),
        90_000,
        diagnose,
      );
      expect(resumed.session_id).toBe(started.session_id);
      expect((await live()).map((session) => [session.session_id, session.pid])).toEqual([[started.session_id, resumed.pid]]);
    },
  );
});
