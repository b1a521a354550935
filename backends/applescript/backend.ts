// macOS terminals driven by AppleScript through osascript: Terminal.app by the exact tty of the agent's tab, iTerm2 by
// the session UUID from ITERM_SESSION_ID (`w0t1p0:<UUID>`; only the UUID is stable and equals the session's `id`).
// One script selects and activates, a second one reads back what is selected and in front (docs/focus.md).
import { done, failed, skipped, type BackendOutcome, type TerminalBackend, type FocusContext, type Operation } from "../contract.ts";
import type { Terminal } from "../../src/core/schema.ts";
import { ITERM_FOCUS, ITERM_VERIFY, TERMINAL_ACTIVATE, TERMINAL_FOCUS, TERMINAL_STATE, TERMINAL_VERIFY } from "./scripts.ts";
import { runAppleScript } from "./osascript.ts";

export type AppleScriptTarget = { readonly app: "terminal"; readonly tty: string } | { readonly app: "iterm2"; readonly session: string };

const ITERM_SESSION = /^w\d+t\d+p\d+:([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$/;
/** macOS pseudo-terminals are /dev/ttysNNN; anything else (a Linux /dev/pts/N) is not a Terminal.app tab. */
const MAC_TTY = /^\/dev\/ttys\d{1,6}$/;

export function parseITermSessionId(value: string | undefined): string | undefined {
  return value === undefined ? undefined : ITERM_SESSION.exec(value)?.[1]?.toUpperCase();
}

/** Only targets captured on macOS: an iTerm2 session id, or Terminal.app with the recorded tty of the agent. */
export function detectAppleScript(terminal: Terminal): AppleScriptTarget | undefined {
  const session = parseITermSessionId(terminal.env.ITERM_SESSION_ID);
  if (session) return { app: "iterm2", session };
  if (terminal.env.TERM_PROGRAM === "Apple_Terminal" && terminal.tty !== undefined && MAC_TTY.test(terminal.tty))
    return { app: "terminal", tty: terminal.tty };
  return undefined;
}

interface AppSpec {
  readonly name: string;
  readonly focus: string;
  readonly verify: string;
  readonly id: string;
  /** e.g. `the Terminal.app tab on /dev/ttys004`. */
  readonly what: string;
}

const specOf = (target: AppleScriptTarget): AppSpec =>
  target.app === "terminal"
    ? { name: "Terminal", focus: TERMINAL_FOCUS, verify: TERMINAL_VERIFY, id: target.tty, what: `the Terminal.app tab on ${target.tty}` }
    : { name: "iTerm2", focus: ITERM_FOCUS, verify: ITERM_VERIFY, id: target.session, what: `the iTerm2 session ${target.session}` };

export const describeAppleScript = (target: AppleScriptTarget): string =>
  target.app === "terminal" ? `Terminal.app tab ${target.tty}` : `iTerm2 session ${target.session}`;

export async function focusAppleScript(target: AppleScriptTarget, context: FocusContext): Promise<BackendOutcome> {
  const spec = specOf(target);
  const where = describeAppleScript(target);
  const focused = await runAppleScript(context, spec.name, spec.focus, [spec.id]);
  if (!focused.ok) {
    if (focused.reason !== "error")
      return {
        located: false,
        target: where,
        selection: skipped(focused.detail),
        activation: skipped(focused.detail),
        unavailable: focused.detail,
      };
    return { located: false, target: where, selection: failed(focused.detail), activation: skipped(focused.detail) };
  }
  if (focused.stdout !== "ok") {
    const why =
      focused.stdout === "not-running"
        ? `${spec.name} is not running, so ${spec.what} is gone`
        : focused.stdout === "missing"
          ? `${spec.what} no longer exists (closed?)`
          : `unexpected answer from osascript: ${focused.stdout}`;
    return { located: false, target: where, selection: failed(why), activation: skipped(why) };
  }

  const verified = await runAppleScript(context, spec.name, spec.verify, [spec.id]);
  if (!verified.ok)
    return {
      located: true,
      target: where,
      selection: failed(`could not verify: ${verified.detail}`),
      activation: failed(`could not verify: ${verified.detail}`),
    };
  const [isSelected, front = "", frontmost] = verified.stdout.split("\t");
  const selection: Operation =
    isSelected === "true"
      ? done(`selected ${spec.what} in its window`)
      : failed(`${spec.what} is not selected in its window after focusing (${spec.name} says ${verified.stdout})`);
  const activation: Operation =
    front.toUpperCase() !== spec.id.toUpperCase()
      ? failed(`the front ${spec.name} window shows ${front || "nothing"}, not ${spec.id}`)
      : frontmost !== "true"
        ? failed(
            `${spec.what} is in ${spec.name}'s front window, but ${spec.name} did not come to the front (macOS may refuse activation requested from the background)`,
          )
        : done(`${spec.name} is in front showing ${spec.what}`);
  return { located: true, target: where, selection, activation };
}

/** A tmux client in Terminal.app: its environment names no tty, so only the app can be raised; proven only with one tab. */
async function raiseTerminalApp(context: FocusContext): Promise<Operation> {
  const activated = await runAppleScript(context, "Terminal", TERMINAL_ACTIVATE, []);
  if (!activated.ok) return failed(activated.detail);
  if (activated.stdout !== "ok") return failed("Terminal.app is not running");
  const state = await runAppleScript(context, "Terminal", TERMINAL_STATE, []);
  if (!state.ok) return failed(state.detail);
  const [frontmost, tabs] = state.stdout.split("\t");
  if (frontmost !== "true")
    return failed("Terminal.app did not come to the front (macOS may refuse activation requested from the background)");
  if (tabs !== "1")
    return failed(
      `brought Terminal.app to the front, but it has ${tabs} tabs and the client's environment does not say which one holds it (no tty)`,
    );
  return done("brought Terminal.app (one tab) to the front");
}

export const applescriptBackend = {
  id: "applescript",
  displayName: "macOS Terminal.app / iTerm2 (AppleScript)",
  detect: detectAppleScript,
  describe: describeAppleScript,
  focus: focusAppleScript,
  /** A tmux or screen client running in iTerm2 (its session id) or Terminal.app (the app only). */
  async raise(env, context): Promise<Operation | undefined> {
    const session = parseITermSessionId(env.ITERM_SESSION_ID);
    if (session) {
      const outcome = await focusAppleScript({ app: "iterm2", session }, context);
      const succeeded = outcome.unavailable === undefined && outcome.selection.succeeded && outcome.activation.succeeded;
      return { attempted: true, succeeded, detail: outcome.unavailable ?? `${outcome.selection.detail}; ${outcome.activation.detail}` };
    }
    return env.TERM_PROGRAM === "Apple_Terminal" ? raiseTerminalApp(context) : undefined;
  },
} satisfies TerminalBackend<AppleScriptTarget>;
