// What the live `answer` tests share: an agent CLI in a private tmux server whose pane's TMUX and TMUX_PANE reach the
// agent (and so its hooks and the record), typing into it, its record, and `tongs-agents answer` as a process.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect } from "vitest";
import { startProvider } from "../../e2e/provider/server.mjs";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { harnessBinDir } from "./harnesses.ts";
import { listedSessions, liveWorld } from "./live-world.ts";
import { enterUntilSent } from "./tmux-ui.ts";
import { KEY_DIALOGS, readDialog } from "../../src/answer/dialogs.ts";
import { shellQuote } from "../../src/core/shell-quote.ts";
import { CLI_BIN, ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What each answer test gets fresh: a sandbox, a private tmux server's socket in it, the synthetic provider. */
export interface EachTest {
  readonly sandbox: Sandbox;
  readonly socket: string;
  readonly provider: Awaited<ReturnType<typeof startProvider>>;
}

/**
 * Per test, a sandbox, a tmux socket and the synthetic provider whose tool call is `touch approved` (a command that
 * changes something, so each agent asks); the tmux server and the provider stopped, the sandbox removed after it.
 */
export function eachTest(): EachTest {
  const current: { -readonly [key in keyof EachTest]?: EachTest[key] } = {};
  beforeEach(async () => {
    current.sandbox = makeSandbox();
    current.socket = join(current.sandbox.root, "tmux.sock");
    current.provider = await startProvider({ port: 0, toolCommand: "touch approved" });
  });
  afterEach(async () => {
    if (current.socket) await stopTmuxServer(current.socket);
    await current.provider?.stop();
    current.sandbox?.cleanup();
  });
  return {
    get sandbox() {
      return current.sandbox as Sandbox;
    },
    get socket() {
      return current.socket as string;
    },
    get provider() {
      return current.provider as EachTest["provider"];
    },
  };
}

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  explain = () => "",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${explain()}`);
    await sleep(250);
  }
}

interface Shown {
  session_id: string;
  short_id: string;
  identity: string;
  status: string;
  updated_at: string;
}

export interface AnswerLab {
  readonly screen: () => string;
  readonly keys: (...keys: string[]) => void;
  /** Type a line, wait until the input shows it, then Enter, until the record says the line went. */
  readonly type: (text: string) => Promise<void>;
  /**
   * `/clear`, then wait until `gone` left the screen. A slash command's completion menu may take the first Enter: while
   * the input still holds `/clear`, Enter again (bounded by the wait).
   */
  readonly clear: (gone: string) => Promise<void>;
  readonly session: () => Promise<Shown | undefined>;
  /** Type `prompt`, wait until the pane shows the dialog's `question` and the record is waiting: that record. */
  readonly asks: (prompt: string, question: string) => Promise<Shown>;
  readonly answer: (...args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;
  /**
   * `tongs-agents pick` (no colours: the selection is marked `>`) in a window of its own on the same tmux server,
   * opened in the background (the agent's window stays the current one): its screen and keys.
   */
  readonly picker: () => { readonly screen: () => string; readonly keys: (...keys: string[]) => void };
}

/** Start `command` in a clean environment (`env`, plus the pane's own TMUX and TMUX_PANE) in a new tmux server. */
export function startAnswerLab(socket: string, cwd: string, env: NodeJS.ProcessEnv, command: string): AnswerLab {
  const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
  const screen = () => tmux("capture-pane", "-p", "-J", "-t", "live");
  const assignments = Object.entries(env).map(([key, value]) => shellQuote(`${key}=${value}`));
  const listed = listedSessions<Shown>(env);
  const session = async () => (await listed()).find((s) => s.identity === "process");
  const dialog = KEY_DIALOGS.find((spec) => spec.harness === command.split(" ")[0]);
  const dialogShown = () => dialog !== undefined && readDialog(screen().split("\n"), dialog) !== undefined;
  tmux(
    "new-session",
    "-d",
    "-s",
    "live",
    "-x",
    "140",
    "-y",
    "45",
    "-c",
    cwd,
    "/bin/sh",
    "-c",
    `exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ${assignments.join(" ")} ${command}`,
  );
  // Keys sent before the input is ready are lost (Qwen Code right after /clear, seen here): type again, bounded.
  const type = async (text: string) => {
    for (let attempt = 1; ; attempt++) {
      tmux("send-keys", "-t", "live", "-l", text);
      try {
        await until(`${text} typed`, () => (screen().includes(text) ? true : undefined), 5000, screen);
        break;
      } catch (error) {
        if (attempt === 4) throw error;
      }
    }
    // Enter may be lost as well (Gemini CLI in CI: the line stayed in its input).
    const mark = async () => {
      const shown = await session();
      return `${shown?.session_id} ${shown?.updated_at}`;
    };
    const before = await mark();
    const enter = () => tmux("send-keys", "-t", "live", "Enter");
    enter();
    await enterUntilSent(text, { before, mark, enter, dialogShown, explain: screen });
  };
  return {
    screen,
    keys: (...keys) => void tmux("send-keys", "-t", "live", ...keys),
    type,
    session,
    asks: async (prompt, question) => {
      await type(prompt);
      await until("the dialog", () => (screen().includes(question) ? true : undefined), 60_000, screen);
      return until(
        "the session waiting",
        async () => ((await session())?.status === "waiting" ? await session() : undefined),
        60_000,
        screen,
      );
    },
    clear: async (gone) => {
      tmux("send-keys", "-t", "live", "-l", "/clear");
      await until("/clear typed", () => (screen().includes("/clear") ? true : undefined), 30_000, screen);
      tmux("send-keys", "-t", "live", "Enter");
      let pressed = Date.now();
      await until(
        "a cleared conversation",
        () => {
          const shown = screen();
          if (!shown.includes(gone)) return true;
          if (/^\s*[>❯]\s+\/clear\s*$/m.test(shown) && Date.now() - pressed > 2000) {
            tmux("send-keys", "-t", "live", "Enter");
            pressed = Date.now();
          }
          return undefined;
        },
        30_000,
        screen,
      );
      await sleep(500);
    },
    picker: () => {
      const pane = tmux(
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-t",
        "live",
        "-n",
        "picker",
        "/bin/sh",
        "-c",
        `exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ${assignments.join(" ")} TERM=xterm-256color NO_COLOR=1 TONGS_AGENTS_SERVER=off ` +
          `${shellQuote(process.execPath)} ${shellQuote(CLI_BIN)} pick`,
      ).trim();
      return {
        screen: () => tmux("capture-pane", "-p", "-J", "-t", pane),
        keys: (...keys) => void tmux("send-keys", "-t", pane, ...keys),
      };
    },
    answer: async (...args) => {
      const run = await runCliProcess(["answer", ...args], env);
      return { code: run.code, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
    },
  };
}

/**
 * Claude Code with the hooks `install` writes, in its own tmux server (`socket`), in the sandbox's environment, asking for permissions ("default" mode), against
 * the synthetic provider; `asks` makes it ask to run `touch approved` and waits for the waiting record.
 */
export async function startClaudeLab(
  sandbox: Sandbox,
  socket: string,
  providerUrl: string,
  /**
   * Keep the held PermissionRequest hook `install` writes (default). Without it `answer` falls back to keys into the
   * pane, the channel the keystroke tests prove (docs/answer.md).
   */
  { held = true }: { held?: boolean } = {},
) {
  const world = liveWorld(sandbox, ROOT, [harnessBinDir("claude")], {
    ANTHROPIC_BASE_URL: providerUrl,
    ANTHROPIC_AUTH_TOKEN: "not-a-key",
  });
  expect((await runInstaller(world, { harnesses: await installersFor(["claude"]), mode: "install", dryRun: false, options: [] })).ok).toBe(
    true,
  );
  const config = world.env.CLAUDE_CONFIG_DIR as string;
  const project = join(sandbox.root, "project");
  mkdirSync(project);
  writeFileSync(
    join(config, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      hasSeenAutoDefaultNudge: true,
      projects: { [project]: { hasTrustDialogAccepted: true } },
    }),
  );
  const settingsPath = join(config, "settings.json");
  const settings = JSON.parse(execFileSync("cat", [settingsPath], { encoding: "utf8" })) as Record<string, unknown>;
  const hooks = settings.hooks as Record<string, { hooks: { command: string }[] }[]>;
  const permissionRequest = held
    ? hooks.PermissionRequest
    : hooks.PermissionRequest?.filter((group) => !group.hooks.some((hook) => hook.command.includes(" permission-hold ")));
  writeFileSync(
    settingsPath,
    JSON.stringify({ ...settings, hooks: { ...hooks, PermissionRequest: permissionRequest }, permissions: { defaultMode: "default" } }),
  );

  const lab = startAnswerLab(socket, project, world.env, "claude");
  const { screen } = lab;
  await until("Claude's input prompt", () => (screen().includes("? for shortcuts") ? true : undefined), 90_000, screen);
  const asks = () => lab.asks("RUNTOOL now", "Do you want to proceed?");
  /** Claude Code says the denied command did not run. */
  const toldNotRun = () =>
    until(
      "Claude told it did not run",
      () => (screen().includes("Did not run") || screen().includes("Interrupted") ? true : undefined),
      30_000,
      screen,
    );
  return { ...lab, world, project, asks, toldNotRun };
}
