// Plain X11 terminals (xterm, urxvt, st, alacritty on X11, ...) set WINDOWID to their X window: window-level focus
// only, there are no tabs or panes to select. Last in the registry: every richer backend claims its terminal first
// (kitty also sets WINDOWID). docs/focus.md, "X11".
import {
  done,
  failed,
  skipped,
  type BackendOutcome,
  type FocusContext,
  type Operation,
  type ReadContext,
  type TerminalBackend,
  type WindowFocus,
} from "../contract.ts";
import { activateWindow, focusedWindow, hexId, windowExists, X_TOOLS_MISSING, type XDisplay } from "./window.ts";

export interface X11Target {
  readonly windowId: number;
  /** The DISPLAY captured with WINDOWID; the caller's DISPLAY when none was captured. */
  readonly display: string | undefined;
}

/** WINDOWID is decimal (xterm, kitty, urxvt); accept hex too. */
export function parseWindowId(value: string | undefined): number | undefined {
  if (!value || !/^(\d+|0x[0-9a-fA-F]+)$/.test(value)) return undefined;
  const id = Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

const describeTarget = ({ windowId, display }: X11Target) => `X11 window ${hexId(windowId)}${display ? ` on ${display}` : ""}`;

async function focusWindow(target: X11Target, context: FocusContext): Promise<BackendOutcome> {
  const description = describeTarget(target);
  const display = target.display ?? context.env.DISPLAY;
  if (!display)
    return {
      located: false,
      target: description,
      selection: skipped("no X display"),
      activation: skipped("no X display"),
      unavailable: "no X display: neither the session nor this shell has DISPLAY set",
    };
  const x: XDisplay = { run: context.run, display, env: context.env };
  const exists = await windowExists(x, target.windowId);
  if (!exists) {
    // No xdotool: wmctrl alone can activate, but can check neither that the window exists nor the result.
    const activated = await activateWindow(x, target.windowId);
    if (!activated.ok && activated.missingTools) {
      return {
        located: false,
        target: description,
        selection: skipped(X_TOOLS_MISSING),
        activation: skipped(X_TOOLS_MISSING),
        unavailable: `cannot focus X11 windows: ${X_TOOLS_MISSING}`,
      };
    }
    const unchecked = "cannot check that the window exists without xdotool (apt install xdotool)";
    return {
      located: false,
      target: description,
      selection: failed(unchecked),
      activation: activated.ok ? done(activated.detail) : failed(activated.detail),
    };
  }
  if (!exists.exists) return { located: false, target: description, selection: failed(exists.detail), activation: skipped(exists.detail) };
  const selection = done(`${exists.detail}; a plain X11 terminal has no tabs or panes to select`);
  const activated = await activateWindow(x, target.windowId);
  return { located: true, target: description, selection, activation: activated.ok ? done(activated.detail) : failed(activated.detail) };
}

/** Is the target the X server's focused window? Unknown without a display or xdotool. */
async function windowFocus(target: X11Target, { run, env }: ReadContext): Promise<WindowFocus> {
  const where = `X11 window ${hexId(target.windowId)}`;
  const display = target.display ?? env.DISPLAY;
  if (!display) return { focused: undefined, where };
  const seen = await focusedWindow({ run, display, env });
  return { focused: seen.kind === "ok" ? seen.id === target.windowId : undefined, where };
}

export const x11Backend = {
  id: "x11",
  displayName: "X11 window",
  detect(terminal) {
    const windowId = parseWindowId(terminal.env.WINDOWID);
    return windowId === undefined ? undefined : { windowId, display: terminal.env.DISPLAY };
  },
  describe: describeTarget,
  focus: focusWindow,
  windowFocus,
  /** A tmux or screen client running in a plain X11 terminal: raise that terminal's window. */
  async raise(env, context): Promise<Operation | undefined> {
    const windowId = parseWindowId(env.WINDOWID);
    if (windowId === undefined) return undefined;
    const outcome = await focusWindow({ windowId, display: env.DISPLAY }, context);
    if (outcome.unavailable) return failed(outcome.unavailable);
    if (!outcome.selection.succeeded) return failed(outcome.selection.detail);
    return outcome.activation.succeeded
      ? done(`raised ${describeTarget({ windowId, display: env.DISPLAY ?? context.env.DISPLAY })}: ${outcome.activation.detail}`)
      : failed(outcome.activation.detail);
  },
} satisfies TerminalBackend<X11Target>;
