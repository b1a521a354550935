// A stateful fake of the X tools focus runs (xdotool, wmctrl) for unit tests, answering with the exit codes and
// messages observed under Xvfb 21 with and without openbox (facts/terminals.md). Live suites run the real ones.
import type { RunOptions, RunResult, Runner } from "../src/core/exec.ts";

const ok = (stdout = ""): RunResult => ({ ok: true, code: 0, stdout, stderr: "" });
const fail = (stderr: string): RunResult => ({ ok: false, code: 1, stdout: "", stderr });
const missing: RunResult = { ok: false, code: undefined, stdout: "", stderr: "", failure: "not-found" };
const NO_EWMH_ACTIVATE =
  "Your windowmanager claims not to support _NET_ACTIVE_WINDOW, so the attempt to activate the window was aborted.\nxdo_activate_window on window:1 reported an error";
const NO_EWMH_QUERY =
  "Your windowmanager claims not to support _NET_ACTIVE_WINDOW, so the attempt to query the active window aborted.\nxdo_get_active_window reported an error";
const BAD_WINDOW =
  "X Error of failed request:  BadWindow (invalid Window parameter)\n  Major opcode of failed request:  20 (X_GetProperty)";

export interface FakeXOptions {
  /** An EWMH window manager runs (openbox); without one only the input focus exists. */
  readonly wm?: boolean;
  readonly xdotool?: boolean;
  readonly wmctrl?: boolean;
  /** A window manager that refuses activation requests (focus-stealing prevention). */
  readonly refuses?: boolean;
}

export interface FakeX {
  readonly run: Runner;
  readonly calls: { file: string; args: readonly string[]; display: string | undefined }[];
  readonly windows: Set<number>;
  focused: number | undefined;
}

/** `onActivate` lets another fake (kitty) learn that an OS window was brought up. */
export function fakeX(options: FakeXOptions = {}, onActivate: (id: number) => void = () => undefined): FakeX {
  const { wm = true, xdotool = true, wmctrl = true, refuses = false } = options;
  const state: FakeX = {
    calls: [],
    windows: new Set<number>(),
    focused: undefined,
    run: async (file: string, args: readonly string[], runOptions?: RunOptions) => {
      state.calls.push({ file, args, display: runOptions?.env?.DISPLAY });
      const id = Number(args.at(-1));
      const bring = () => {
        if (refuses) return;
        state.focused = id;
        onActivate(id);
      };
      if (file === "xdotool") {
        if (!xdotool) return missing;
        switch (args[0]) {
          case "getwindowname":
            return state.windows.has(id) ? ok("kitty") : fail(BAD_WINDOW);
          case "windowactivate":
            if (!wm) return fail(NO_EWMH_ACTIVATE);
            if (!state.windows.has(id)) return fail(BAD_WINDOW);
            bring();
            return refuses ? { ok: false, code: undefined, stdout: "", stderr: "", failure: "timeout" } : ok();
          case "windowraise":
            return ok();
          case "windowfocus":
            if (!state.windows.has(id)) return fail(BAD_WINDOW);
            bring();
            return ok();
          case "getactivewindow":
            if (!wm) return fail(NO_EWMH_QUERY);
            return state.focused === undefined
              ? fail("XGetWindowProperty[_NET_ACTIVE_WINDOW] failed (code=1)\nxdo_get_active_window reported an error")
              : ok(String(state.focused));
          case "getwindowfocus":
            return ok(String(state.focused ?? 1));
        }
      }
      if (file === "wmctrl") {
        if (!wmctrl) return missing;
        const hex = Number(args.at(-1));
        if (!state.windows.has(hex)) return fail("");
        // Without a window manager wmctrl exits 0 and does nothing.
        if (wm && !refuses) {
          state.focused = hex;
          onActivate(hex);
        }
        return ok();
      }
      return missing;
    },
  };
  return state;
}
