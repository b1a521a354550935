// Temp homes for tests: every config and state location a test could reach points into a fresh directory.
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { namedDrainer } from "../src/store/drainer-process.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Sandbox {
  readonly root: string;
  readonly home: string;
  readonly stateDir: string;
  readonly env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** Variables that would let a test touch the real user's config or state. */
export const SANDBOXED_VARS = [
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_STATE_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "PI_CODING_AGENT_DIR",
  "GEMINI_CLI_HOME",
  "QWEN_HOME",
  "COPILOT_HOME",
  "KIMI_CODE_HOME",
  "CLINE_DIR",
  "TONGS_AGENTS_STATE_DIR",
] as const;

/** Variables of the developer's own terminal that must not leak into what a test captures. */
const TERMINAL_VARS = [
  "TMUX",
  "TMUX_PANE",
  "KITTY_WINDOW_ID",
  "KITTY_LISTEN_ON",
  "KITTY_PID",
  "WEZTERM_PANE",
  "WEZTERM_UNIX_SOCKET",
  "ITERM_SESSION_ID",
  "TERM_SESSION_ID",
  "WINDOWID",
  "STY",
  "WINDOW",
  "TONGS_AGENTS_LAUNCH_ID",
  "TONGS_AGENTS_PROFILE",
  "TONGS_AGENTS_DEBUG",
  "TONGS_AGENTS_SERVER",
  "DBUS_SESSION_BUS_ADDRESS",
];

/**
 * Markers of a CI runner. A sandbox stands for a user's terminal, and the harnesses change behaviour under them:
 * Gemini CLI 0.61 runs headless when `CI=true` or `GITHUB_ACTIONS=true` (it then reads a prompt from stdin, finds
 * none and exits, so an interactive live test never sees SessionStart); ink's is-in-ci also counts any `CI_*`.
 */
const isCiMarker = (name: string) =>
  ["CI", "GITHUB_ACTIONS", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID"].includes(name) || name.startsWith("CI_");

export function makeSandbox(prefix = "tongs-test-"): Sandbox {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, "home");
  const dirs = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
    PI_CODING_AGENT_DIR: join(home, ".pi", "agent"),
    // Gemini CLI's GEMINI_CLI_HOME stands for HOME (settings in <it>/.gemini); Qwen Code's QWEN_HOME for ~/.qwen.
    GEMINI_CLI_HOME: home,
    QWEN_HOME: join(home, ".qwen"),
    COPILOT_HOME: join(home, ".copilot"),
    KIMI_CODE_HOME: join(home, ".kimi-code"),
    CLINE_DIR: join(home, ".cline"),
    TONGS_AGENTS_STATE_DIR: join(root, "state"),
  } satisfies Record<(typeof SANDBOXED_VARS)[number], string>;
  mkdirSync(home, { recursive: true });
  // Hermetic: the CLI lists only this sandbox's records, not harness processes running elsewhere on the machine (tests
  // of discovery inject their own process list); hooks start no notifier (the notification suites turn it on) and
  // nothing reaches the developer's desktop bus.
  const env: NodeJS.ProcessEnv = { ...process.env, ...dirs, TONGS_AGENTS_DISCOVERY: "off", TONGS_AGENTS_NOTIFY: "off" };
  for (const name of Object.keys(env)) if (TERMINAL_VARS.includes(name) || isCiMarker(name)) delete env[name];
  return {
    root,
    home,
    stateDir: dirs.TONGS_AGENTS_STATE_DIR,
    env,
    cleanup: () => {
      // A harness killed with its tmux server may still write into its home while it exits, and a hook shim that was
      // still running may start a drainer after the last one stopped: stop the drainer again and retry, up to 5 s.
      for (let attempt = 1; ; attempt++) {
        // The drainer a hook shim started for this sandbox's state dir (it names itself there) goes with it.
        stopDrainer(dirs.TONGS_AGENTS_STATE_DIR);
        try {
          rmSync(root, { recursive: true, force: true, maxRetries: 2, retryDelay: 50 });
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOTEMPTY" || attempt === 20) throw error;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
        }
      }
    },
  };
}

/** Stop the drainer named in a state dir's drainer.pid (by its PID, checked against its start time). */
export function stopDrainer(stateDir: string): void {
  const named = namedDrainer(stateDir);
  if (named === undefined) return;
  try {
    process.kill(Number(named.split(" ")[0]), "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
