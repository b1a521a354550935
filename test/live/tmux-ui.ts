// A harness's interactive UI in a private tmux server (its own socket), for the live tests: each window runs the CLI
// with only the world's environment plus the pane's own tmux variables (what a user's shell in tmux passes on), and the
// records are read back with `tongs-agents list`.
import { execFileSync } from "node:child_process";
import type { InstallContext } from "../../src/install/context.ts";
import { listedSessions } from "./live-world.ts";

export interface ShownSession {
  session_id: string;
  identity: string;
  status: string;
  detail: string;
  tool: string;
  pid: number;
  last_event: string;
  terminal: { env: Record<string, string> };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  explain: () => string | Promise<string>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${await explain()}`);
    await sleep(250);
  }
}

/**
 * After a line was typed and Enter pressed: wait until the records say it went (`mark()` differs from `before`), pressing
 * Enter again every 5 s, never while `dialogShown()` (Enter would pick the dialog's first option). Under load Gemini
 * CLI has kept a typed line unsent in its input (CI at f638f07, and since); a second Enter sends it.
 */
export async function enterUntilSent(
  what: string,
  {
    before,
    mark,
    enter,
    dialogShown,
    explain,
  }: {
    before: string;
    mark: () => Promise<string>;
    enter: () => void;
    dialogShown: () => boolean;
    explain: () => string | Promise<string>;
  },
): Promise<void> {
  let pressed = Date.now();
  await until(
    `${what} sent`,
    async () => {
      if ((await mark()) !== before) return true;
      if (Date.now() - pressed > 5000 && !dialogShown()) {
        enter();
        pressed = Date.now();
      }
      return undefined;
    },
    explain,
  );
}

/**
 * `bin` in windows of the session "live" on `socket`, in `project`. `inputMark` is what the UI's input line shows before
 * typed text (`> ` for Kimi Code, `❯ ` for Copilot CLI): text still there after Enter was not sent.
 */
export function tmuxUi({
  socket,
  project,
  world,
  bin,
  inputMark,
}: {
  socket: string;
  project: string;
  world: InstallContext;
  bin: string;
  inputMark: string;
}) {
  const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
  const screen = (window: string) => {
    try {
      return tmux("capture-pane", "-p", "-J", "-t", `live:${window}`);
    } catch (error) {
      return `(no screen: ${String(error)})`;
    }
  };
  const env = Object.entries(world.env).map(([key, value]) => `${key}=${value}`);
  const launch = 'exec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" "$@"';
  /** Start the CLI in a new window (the first one makes the session); returns its pane id. */
  const start = (window: string, ...args: string[]) => {
    const first = !tmuxHasSession();
    const where = first
      ? ["new-session", "-d", "-s", "live", "-n", window, "-x", "150", "-y", "45"]
      : ["new-window", "-t", "live", "-n", window];
    tmux(...where, "-c", project, "sh", "-c", launch, "sh", ...env, bin, ...args);
    // A CLI that exits leaves its last screen for the diagnosis.
    if (first) tmux("set-option", "-g", "remain-on-exit", "on");
    return tmux("display-message", "-p", "-t", `live:${window}`, "#{pane_id}").trim();
  };
  const tmuxHasSession = () => {
    try {
      tmux("has-session", "-t", "live");
      return true;
    } catch {
      return false;
    }
  };
  const listed = listedSessions<ShownSession>(world.env, ["--all"]);
  const sessions = async () => (await listed()).filter((session) => session.identity === "process");
  const live = async () => (await sessions()).filter((session) => session.status !== "ended");
  const explain = (window: string) => async () => `${screen(window)}\n${JSON.stringify(await sessions(), null, 1)}`;
  /** Typed text, then Enter until the input line no longer holds it (a UI drops an Enter that comes too early). */
  const type = async (window: string, text: string) => {
    // The input line: the mark, the text, then only blanks or the box's edge (Copilot echoes a sent prompt with the
    // same mark, but with its time after it).
    const typed = () =>
      screen(window)
        .split("\n")
        .some((line) => {
          const at = line.indexOf(`${inputMark}${text}`);
          return at >= 0 && /^[\s│]*$/.test(line.slice(at + inputMark.length + text.length));
        });
    tmux("send-keys", "-t", `live:${window}`, "-l", text);
    // A UI that redraws the line as it completes a command may never show it plainly: then Enter once, after a pause.
    const shown = await until(`"${text}" typed`, async () => (typed() ? true : undefined), explain(window), 10_000).catch(() => false);
    if (!shown) {
      await sleep(1500);
      tmux("send-keys", "-t", `live:${window}`, "Enter");
      return;
    }
    await until(
      `"${text}" sent`,
      async () => {
        await sleep(500);
        if (!typed()) return true;
        tmux("send-keys", "-t", `live:${window}`, "Enter");
        await sleep(2000);
        return typed() ? undefined : true;
      },
      explain(window),
      30_000,
    );
  };
  const keys = (window: string, ...names: string[]) => void tmux("send-keys", "-t", `live:${window}`, ...names);
  return { start, screen, sessions, live, explain, type, keys };
}
