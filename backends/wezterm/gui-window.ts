// Raise the OS window of a GUI process known only by its PID (a terminal without its own "raise this window" command,
// such as WezTerm: wez/wezterm#3542). X11: xdotool finds the process's windows (_NET_WM_PID) and activates the one;
// macOS: System Events brings the process to the front. Each path re-reads what is in front before claiming success.
import { done, failed, skipped, type FocusContext, type Operation } from "../contract.ts";
import { FRONTMOST_PROCESS, RAISE_PROCESS, runAppleScript } from "../applescript/osascript.ts";

export interface GuiProcess {
  readonly pid: number;
  /** How to name it in details, e.g. `WezTerm (pid 4242)`. */
  readonly name: string;
  /** Windows the app itself reports; more than one means raising the app may show another of its windows. */
  readonly windows: number;
  /** Why several windows cannot be told apart, for the detail. */
  readonly manyWindowsWhy: string;
}

export async function raiseGuiProcess(gui: GuiProcess, context: FocusContext): Promise<Operation> {
  if (context.platform === "darwin") return raiseMac(gui, context);
  if (context.platform === "win32") return skipped(`raising ${gui.name} is not implemented on Windows`);
  return raiseX11(gui, context);
}

async function raiseX11(gui: GuiProcess, context: FocusContext): Promise<Operation> {
  if (!context.env.DISPLAY) {
    return failed(
      context.env.WAYLAND_DISPLAY
        ? `Wayland session without X11: ${gui.name} cannot be raised from outside (wez/wezterm#7990)`
        : `no DISPLAY: cannot raise the X11 window of ${gui.name}`,
    );
  }
  const xdotool = (...args: string[]) => context.run("xdotool", args);
  const search = await xdotool("search", "--pid", String(gui.pid));
  if (search.failure === "not-found") return failed(`xdotool is not installed: install it to raise the window of ${gui.name}`);
  const ids = search.stdout.split("\n").filter((line) => /^\d+$/.test(line));
  if (ids.length === 0) return failed(`no X11 window belongs to ${gui.name}${search.stderr ? ` (${search.stderr.trim()})` : ""}`);
  if (ids.length > 1) return failed(`${gui.name} has ${ids.length} X11 windows: ${gui.manyWindowsWhy}`);
  const id = ids[0] as string;
  const activated = await xdotool("windowactivate", "--sync", id);
  if (!activated.ok)
    return failed(
      `xdotool could not activate X11 window ${id} of ${gui.name}: ${activated.stderr.trim() || activated.failure || `exit ${activated.code}`}`,
    );
  const active = await xdotool("getactivewindow");
  return active.stdout.trim() === id
    ? done(`raised X11 window ${id} of ${gui.name}`)
    : failed(`after activating X11 window ${id} of ${gui.name}, the active window is ${active.stdout.trim() || "unknown"}`);
}

async function raiseMac(gui: GuiProcess, context: FocusContext): Promise<Operation> {
  const raised = await runAppleScript(context, "System Events", RAISE_PROCESS, [String(gui.pid)]);
  if (!raised.ok) return failed(raised.detail);
  const front = await runAppleScript(context, "System Events", FRONTMOST_PROCESS, []);
  if (!front.ok) return failed(front.detail);
  if (front.stdout !== String(gui.pid))
    return failed(
      `asked macOS to bring ${gui.name} to the front, but process ${front.stdout} is in front (macOS may refuse activation requested from the background)`,
    );
  if (gui.windows > 1) return failed(`brought ${gui.name} to the front, but it has ${gui.windows} windows: ${gui.manyWindowsWhy}`);
  return done(`brought ${gui.name} to the front`);
}
