// A stateful fake of xdotool (MOCKED), modelled on xdotool 3.20160805 (Debian 12) and its source (xdo.c): an X display
// with windows (id, owning pid from _NET_WM_PID, name) and an active window. With `wm: false` (no window manager, as on a
// bare Xvfb) activation and the active-window query fail the way xdotool does.
import { fail, loadState, logCall, print, saveState } from "./fake-state.mjs";

const argv = process.argv.slice(2);
logCall("xdotool", argv);
const state = loadState("xdotool");

const display = process.env.DISPLAY;
if (!display || display !== state.display) fail(`Error: Can't open display: ${display || "(null)"}\nFailed creating new xdo instance`);

const [command, ...rest] = argv;
const flags = rest.filter((arg) => arg.startsWith("--"));
const args = rest.filter((arg, at) => !arg.startsWith("--") && !(rest[at - 1] === "--pid"));

switch (command) {
  case "search": {
    const pidAt = rest.indexOf("--pid");
    const pid = pidAt < 0 ? undefined : Number(rest[pidAt + 1]);
    const pattern = args[0] === undefined ? undefined : new RegExp(args[0]);
    const matches = state.windows.filter(
      (window) =>
        (pid === undefined || window.pid === pid) &&
        (!pattern || pattern.test(window.name)) &&
        (!flags.includes("--onlyvisible") || !window.minimized),
    );
    // xdotool prints nothing and exits 1 when nothing matches.
    if (matches.length === 0) process.exit(1);
    print(matches.map((window) => String(window.id)).join("\n"));
    break;
  }
  case "windowactivate": {
    const id = Number(args[0]);
    if (!state.wm)
      fail(
        `Your windowmanager claims not to support _NET_ACTIVE_WINDOW, so the attempt to activate the window was aborted.\nxdo_activate_window on window:${id} reported an error`,
      );
    const window = state.windows.find((candidate) => candidate.id === id);
    if (!window) fail("X Error of failed request:  BadWindow (invalid Window parameter)");
    if (!state.refuseActivation) {
      window.minimized = false;
      state.active = id;
      saveState("xdotool", state);
    }
    break;
  }
  case "getactivewindow":
    if (!state.wm)
      fail(
        "Your windowmanager claims not to support _NET_ACTIVE_WINDOW, so the attempt to query the active window aborted.\nxdo_get_active_window reported an error",
      );
    print(String(state.active));
    break;
  default:
    fail(`fake xdotool: command ${command} is not modelled`);
}
