// Bring an X11 top-level window to the front and prove it: shared by the X11 backend and kitty (a minimized kitty OS
// window is not restored by kitty's own focus-window). docs/focus.md, "X11".
//
// With a window manager: `xdotool windowactivate --sync` (EWMH _NET_ACTIVE_WINDOW), else `wmctrl -i -a`; verified
// with `xdotool getactivewindow`. Without one there is no _NET_ACTIVE_WINDOW (xdotool says the window manager "claims
// not to support" it, and wmctrl exits 0 doing nothing): raise and set the input focus, verified with
// `xdotool getwindowfocus`.
import type { RunResult, Runner } from "../../src/core/exec.ts";

export interface XDisplay {
  readonly run: Runner;
  /** The DISPLAY the window lives on (captured with the target, not the caller's). */
  readonly display: string;
  /** The environment the X tools run in (DISPLAY is set from `display`). */
  readonly env: NodeJS.ProcessEnv;
}

export type XActivation =
  { readonly ok: true; readonly detail: string } | { readonly ok: false; readonly detail: string; readonly missingTools?: true };

export const X_TOOLS_MISSING = "neither xdotool nor wmctrl is installed (Debian/Ubuntu: apt install xdotool)";
const NO_EWMH = /claims not to support _NET_ACTIVE_WINDOW/;
const ACTIVATE_TIMEOUT_MS = 2000;
const VERIFY_WINDOW_MS = 2000;
const POLL_MS = 40;

export const hexId = (id: number) => `0x${id.toString(16)}`;

function xRun(x: XDisplay, file: string, args: readonly string[], timeoutMs?: number): Promise<RunResult> {
  return x.run(file, args, { env: { ...x.env, DISPLAY: x.display }, ...(timeoutMs ? { timeoutMs } : {}) });
}

const firstLine = (result: RunResult) => (result.stderr.trim().split("\n")[0] ?? "") || result.failure || `exit ${result.code}`;

export type FocusedWindow =
  | { readonly kind: "ok"; readonly id: number | undefined; readonly via: "getactivewindow" | "getwindowfocus" }
  | { readonly kind: "no-xdotool" }
  | { readonly kind: "error"; readonly detail: string };

/** The window the user is at: the window manager's active window, or the input focus when there is no manager. */
export async function focusedWindow(x: XDisplay): Promise<FocusedWindow> {
  const active = await xRun(x, "xdotool", ["getactivewindow"]);
  if (active.failure === "not-found") return { kind: "no-xdotool" };
  if (active.ok) return { kind: "ok", id: Number(active.stdout.trim()), via: "getactivewindow" };
  if (!NO_EWMH.test(active.stderr)) {
    // A manager that supports EWMH but has no active window right now (nothing focused, or mid-switch).
    if (/_NET_ACTIVE_WINDOW/.test(active.stderr)) return { kind: "ok", id: undefined, via: "getactivewindow" };
    return { kind: "error", detail: `xdotool getactivewindow: ${firstLine(active)}` };
  }
  const focus = await xRun(x, "xdotool", ["getwindowfocus"]);
  return focus.ok
    ? { kind: "ok", id: Number(focus.stdout.trim()), via: "getwindowfocus" }
    : { kind: "error", detail: `xdotool getwindowfocus: ${firstLine(focus)}` };
}

/** Does the window exist on that display? undefined when xdotool is missing (cannot tell). */
export async function windowExists(x: XDisplay, id: number): Promise<{ exists: boolean; detail: string } | undefined> {
  const named = await xRun(x, "xdotool", ["getwindowname", String(id)]);
  if (named.failure === "not-found") return undefined;
  if (named.ok) return { exists: true, detail: `X window ${hexId(id)} exists on ${x.display}` };
  if (/BadWindow/.test(named.stderr)) return { exists: false, detail: `X window ${hexId(id)} no longer exists on ${x.display}` };
  return { exists: false, detail: `cannot reach X display ${x.display}: ${firstLine(named)}` };
}

async function waitFocused(x: XDisplay, id: number): Promise<FocusedWindow> {
  const deadline = Date.now() + VERIFY_WINDOW_MS;
  for (;;) {
    const seen = await focusedWindow(x);
    if (seen.kind !== "ok" || seen.id === id || Date.now() >= deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function verdict(seen: FocusedWindow, id: number, how: string): XActivation {
  if (seen.kind === "no-xdotool") return { ok: false, detail: `${how}; not verified: xdotool is not installed (apt install xdotool)` };
  if (seen.kind === "error") return { ok: false, detail: `${how}; could not verify: ${seen.detail}` };
  const what = seen.via === "getactivewindow" ? "active window" : "input focus (no window manager)";
  if (seen.id === id) return { ok: true, detail: `${how}; it is the ${what}` };
  return { ok: false, detail: `${how}, but the ${what} is ${seen.id === undefined ? "none" : hexId(seen.id)}, not ${hexId(id)}` };
}

/** Activate a top-level window and verify it is the one the user is at. */
export async function activateWindow(x: XDisplay, id: number): Promise<XActivation> {
  const activated = await xRun(x, "xdotool", ["windowactivate", "--sync", String(id)], ACTIVATE_TIMEOUT_MS);
  if (activated.ok) return verdict(await waitFocused(x, id), id, `xdotool windowactivate ${hexId(id)}`);
  if (activated.failure !== "not-found" && NO_EWMH.test(activated.stderr)) {
    // No window manager: nothing implements _NET_ACTIVE_WINDOW, so raise the window and give it the input focus.
    await xRun(x, "xdotool", ["windowraise", String(id)]);
    const focused = await xRun(x, "xdotool", ["windowfocus", "--sync", String(id)], ACTIVATE_TIMEOUT_MS);
    if (!focused.ok) return { ok: false, detail: `no window manager; xdotool windowfocus ${hexId(id)}: ${firstLine(focused)}` };
    return verdict(await waitFocused(x, id), id, `no window manager; xdotool windowfocus ${hexId(id)}`);
  }
  const why = activated.failure === "not-found" ? "xdotool is not installed" : `xdotool windowactivate: ${firstLine(activated)}`;
  const wmctrl = await xRun(x, "wmctrl", ["-i", "-a", hexId(id)]);
  if (wmctrl.failure === "not-found") {
    return activated.failure === "not-found"
      ? { ok: false, detail: X_TOOLS_MISSING, missingTools: true }
      : { ok: false, detail: `${why}; wmctrl is not installed` };
  }
  if (!wmctrl.ok) return { ok: false, detail: `${why}; wmctrl -i -a ${hexId(id)}: ${firstLine(wmctrl)}` };
  return verdict(await waitFocused(x, id), id, `${why}; wmctrl -i -a ${hexId(id)}`);
}
