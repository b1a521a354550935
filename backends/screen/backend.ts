// GNU screen: the session from the captured STY (`<server pid>.<name>`), the window from WINDOW. Select with
// `screen -S STY -X select N`, verify with `-Q number` (a missing window is no error for `select`), then make sure the
// user sees the display that shows it (docs/focus.md, "GNU screen").
import { done, failed, skipped, type BackendOutcome, type TerminalBackend, type FocusContext, type Operation } from "../contract.ts";
import type { RunResult } from "../../src/core/exec.ts";
import { linuxScreenClients, type ScreenClient } from "./clients.ts";

export interface ScreenTarget {
  readonly sty: string;
  readonly window: string;
  readonly serverPid: number;
  /** The agent's SCREENDIR, when it had one: where screen keeps the session's socket. */
  readonly screendir?: string;
}

/**
 * Strict on purpose: screen expands `$VARS` in `-X` arguments from the caller's environment, so nothing but digits
 * reaches `-X`, and the session name (`-S`) allows no `$`, space, quote or slash.
 */
const STY = /^(\d{1,10})\.[A-Za-z0-9._+@:-]{1,100}$/;
const WINDOW = /^\d{1,4}$/;

export function parseScreenEnv(env: Record<string, string | undefined>): ScreenTarget | undefined {
  const { STY: sty, WINDOW: window, SCREENDIR: screendir } = env;
  if (sty === undefined || window === undefined || !WINDOW.test(window)) return undefined;
  const match = STY.exec(sty);
  if (!match) return undefined;
  return { sty, window: String(Number(window)), serverPid: Number(match[1]), ...(screendir?.startsWith("/") ? { screendir } : {}) };
}

export interface ScreenDependencies {
  /** The attached client processes of the session whose server has this PID (Linux: from /proc). */
  readonly clientsOf?: (serverPid: number, platform: NodeJS.Platform) => Promise<readonly ScreenClient[] | undefined>;
}

const defaultClientsOf = async (serverPid: number, platform: NodeJS.Platform) =>
  platform === "linux" ? linuxScreenClients(serverPid) : undefined;

function explain(result: RunResult, { sty, window }: ScreenTarget): string {
  const message = result.stderr.trim() || result.stdout.trim() || result.failure || `exit ${result.code}`;
  if (result.failure === "not-found") return "GNU screen is not installed (no `screen` on PATH)";
  if (/No screen session found/i.test(message)) return `screen session ${sty} is gone (no such session in its SCREENDIR)`;
  if (/Could not find pre-select window/i.test(message)) return `window ${window} no longer exists in screen session ${sty}`;
  return message;
}

/** `-Q number` prints `N (title)`. */
const shownWindow = (stdout: string): string | undefined => /^(\d+)\b/.exec(stdout.trim())?.[1];

export function makeScreenBackend({ clientsOf = defaultClientsOf }: ScreenDependencies = {}) {
  const focus = async (target: ScreenTarget, context: FocusContext): Promise<BackendOutcome> => {
    const { sty, window } = target;
    // The session's socket is in the agent's SCREENDIR (captured with the target), whatever the caller's is.
    const env = target.screendir ? { env: { ...context.env, SCREENDIR: target.screendir } } : undefined;
    const screen = (...args: string[]) => context.run("screen", ["-S", sty, ...args], env);
    const where = `GNU screen window ${window} in session ${sty}`;

    const gone = (why: string): BackendOutcome => ({ located: false, target: where, selection: failed(why), activation: skipped(why) });
    // `-p N -Q number` fails for a missing window ("Could not find pre-select window"); `-X select N` returns 0.
    const windowMissing = async (): Promise<string | undefined> => {
      const exists = await screen("-p", window, "-Q", "number");
      return exists.ok ? undefined : explain(exists, target);
    };

    // Attached or detached; no query yet: screen shows every -Q answer as a message on the attached display, and a
    // message shown less than `msgminwait` (1 s) before a window switch delays the next answer by that long.
    const listed = await context.run("screen", ["-ls", sty], env);
    if (listed.failure === "not-found") {
      const why = explain(listed, target);
      return { located: false, target: where, selection: skipped(why), activation: skipped(why), unavailable: why };
    }
    const state = new RegExp(`^\\s+${sty.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s.*\\(([^)]*)\\)\\s*$`, "m").exec(listed.stdout)?.[1];
    if (state === undefined) return gone(`screen session ${sty} is gone (no such session in its SCREENDIR)`);
    // screen keeps the current window per attached display: a detached session ignores `select` (and `-Q number` then
    // answers for the last window created, not for what the next attach shows).
    if (/detached/i.test(state)) {
      const missing = await windowMissing();
      if (missing) return gone(missing);
      const why = `screen session ${sty} is detached: screen selects windows per attached display, so nothing can show window ${window} until you attach (screen -r ${sty})`;
      return { located: true, target: where, selection: failed(why), activation: skipped(why) };
    }

    const selected = await screen("-X", "select", window);
    if (!selected.ok) {
      const why = explain(selected, target);
      return /is gone|no longer exists/.test(why)
        ? gone(why)
        : { located: true, target: where, selection: failed(why), activation: skipped(why) };
    }
    const shown = await screen("-Q", "number");
    if (shownWindow(shown.stdout) !== window) {
      const missing = await windowMissing();
      if (missing) return gone(missing);
      const why = `after select, screen shows window ${shownWindow(shown.stdout) ?? `"${shown.stdout || shown.stderr}"`}, not ${window}`;
      return { located: true, target: where, selection: failed(why), activation: skipped(why) };
    }
    const selection = done(`selected window ${window} of screen session ${sty}`);

    // The caller runs inside this very session: the display in front of the user now shows the window.
    if (context.env.STY === sty)
      return {
        located: true,
        target: where,
        selection,
        activation: done(`your own screen display (session ${sty}) shows window ${window}`),
      };

    const clients = await clientsOf(target.serverPid, context.platform);
    if (clients === undefined)
      return {
        located: true,
        target: where,
        selection,
        activation: failed(
          `finding the attached screen client is implemented on Linux only; the display shows window ${window}, its terminal window was not raised`,
        ),
      };
    const client = clients[0];
    if (!client)
      return { located: true, target: where, selection, activation: failed(`no attached screen client process found for session ${sty}`) };
    const showing = `screen client ${client.pid} on ${client.tty} shows window ${window}`;
    const clientEnv = await context.environOf(client.pid);
    // A client started from inside its own session would raise itself forever.
    if (clientEnv?.STY === sty)
      return { located: true, target: where, selection, activation: failed(`${showing}; that client runs inside session ${sty} itself`) };
    const raised: Operation = clientEnv
      ? await context.raiseOuter(clientEnv)
      : failed(`could not read the environment of screen client process ${client.pid}`);
    return {
      located: true,
      target: where,
      selection,
      activation: { attempted: true, succeeded: raised.succeeded, detail: `${showing}; ${raised.detail}` },
    };
  };

  return {
    id: "screen",
    displayName: "GNU screen",
    detect: (terminal) => parseScreenEnv(terminal.env),
    describe: ({ sty, window }) => `GNU screen window ${window} in session ${sty}`,
    focus,
    /** A tmux (or other) client running in a screen window: select that window, then raise screen's own terminal. */
    async raise(env, context) {
      const target = parseScreenEnv(env);
      if (!target) return undefined;
      const outcome = await focus(target, context);
      const succeeded = outcome.unavailable === undefined && outcome.selection.succeeded && outcome.activation.succeeded;
      return { attempted: true, succeeded, detail: outcome.unavailable ?? `${outcome.selection.detail}; ${outcome.activation.detail}` };
    },
  } satisfies TerminalBackend<ScreenTarget>;
}

export const screenBackend = makeScreenBackend();
