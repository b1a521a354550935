// A stateful fake of osascript (MOCKED: macOS cannot run here), modelling the parts of the Terminal.app, iTerm2 and
// System Events dictionaries the backends use, from their scripting dictionaries and upstream docs:
// - Terminal.app: windows in front-to-back order (index 1 first), each with tabs (tty, selected); `frontmost`.
// - iTerm2: windows (current window first), each with tabs and a current tab, each tab with sessions (id = the UUID of
//   ITERM_SESSION_ID) and a current session.
// - System Events: processes (pid, name); which one is frontmost.
// - Automation permission per target app: "denied" fails with -1743 as macOS does. `tell application ... is running`
//   needs no permission and never launches the app.
// - `activationBlocked`: macOS keeps the current app in front (activation requested from the background).
// It cannot compile AppleScript: it recognises the backends' scripts by their first line (`-- tongs-agents <name>`) and
// executes the modelled semantics; an id that appears inside the script text is rejected (ids must come from argv).
import { fail, loadState, logCall, print, saveState } from "./fake-state.mjs";

const argv = process.argv.slice(2);
logCall("osascript", argv);
const state = loadState("osascript");

const lines = [];
let at = 0;
for (; at < argv.length && argv[at] === "-e"; at += 2) lines.push(argv[at + 1] ?? "");
if (lines.length === 0) fail("usage: osascript [-l language] [-e script] [-i] [-s {ehso}] [programfile] [argument ...]");
const script = lines.join("\n");
const args = argv.slice(at);
// osascript parses options with getopt: an argument after the script that starts with "-" (before the first one that
// does not) is read as an option, not passed to the script.
if (args[0]?.startsWith("-")) fail(`fake osascript: ${JSON.stringify(args[0])} would be read as an option`);
for (const arg of args)
  if (arg.length >= 4 && script.includes(arg)) fail(`fake osascript: argument ${JSON.stringify(arg)} is interpolated into the script text`);
if (!/\bon run argv\b/.test(script)) fail("fake osascript: the backends' scripts take their ids through `on run argv`");
const name = /^-- tongs-agents (\S+)/.exec(script)?.[1];

const APP_NAMES = { terminal: "Terminal", iterm2: "iTerm2", systemEvents: "System Events" };
function tell(app) {
  if (state.automation?.[app] === "denied")
    fail(`${script.length - 8}:${script.length}: execution error: Not authorized to send Apple events to ${APP_NAMES[app]}. (-1743)`);
}
function activate(processName) {
  if (!state.activationBlocked) state.frontmost = processName;
}
const done = (text) => {
  saveState("osascript", state);
  print(text);
  process.exit(0);
};
const TAB = "\t";

const terminal = state.terminal;
const iterm = state.iterm2;

switch (name) {
  case "terminal-focus": {
    if (!terminal.running) done("not-running");
    tell("terminal");
    for (const window of terminal.windows) {
      const found = window.tabs.find((tab) => tab.tty === args[0]);
      if (!found) continue;
      for (const tab of window.tabs) tab.selected = tab === found;
      terminal.windows = [window, ...terminal.windows.filter((other) => other !== window)];
      activate("Terminal");
      done("ok");
    }
    done("missing");
    break;
  }
  case "terminal-verify": {
    if (!terminal.running) done("not-running");
    tell("terminal");
    const tab = terminal.windows.flatMap((window) => window.tabs).find((candidate) => candidate.tty === args[0]);
    const front = terminal.windows[0]?.tabs.find((candidate) => candidate.selected)?.tty ?? "";
    done([String(tab?.selected ?? false), front, String(state.frontmost === "Terminal")].join(TAB));
    break;
  }
  case "terminal-activate":
    if (!terminal.running) done("not-running");
    tell("terminal");
    activate("Terminal");
    done("ok");
    break;
  case "terminal-state": {
    if (!terminal.running) done("not-running");
    tell("terminal");
    const tabs = terminal.windows.reduce((count, window) => count + window.tabs.length, 0);
    done([String(state.frontmost === "Terminal"), String(tabs)].join(TAB));
    break;
  }
  case "iterm2-focus": {
    if (!iterm.running) done("not-running");
    tell("iterm2");
    for (const window of iterm.windows) {
      for (const [tabIndex, tab] of window.tabs.entries()) {
        const sessionIndex = tab.sessions.findIndex((session) => session.id.toUpperCase() === args[0].toUpperCase());
        if (sessionIndex < 0) continue;
        tab.currentSession = sessionIndex;
        window.currentTab = tabIndex;
        iterm.windows = [window, ...iterm.windows.filter((other) => other !== window)];
        activate("iTerm2");
        done("ok");
      }
    }
    done("missing");
    break;
  }
  case "iterm2-verify": {
    if (!iterm.running) done("not-running");
    tell("iterm2");
    const current = (window) => window.tabs[window.currentTab]?.sessions[window.tabs[window.currentTab].currentSession]?.id ?? "";
    const home = iterm.windows.find((window) =>
      window.tabs.some((tab) => tab.sessions.some((session) => session.id.toUpperCase() === args[0].toUpperCase())),
    );
    const isSelected = home ? current(home).toUpperCase() === args[0].toUpperCase() : false;
    done([String(isSelected), iterm.windows[0] ? current(iterm.windows[0]) : "", String(state.frontmost === "iTerm2")].join(TAB));
    break;
  }
  case "raise-process": {
    tell("systemEvents");
    const pid = Number(args[0]);
    const process_ = state.processes.find((candidate) => candidate.pid === pid);
    if (!process_)
      fail(
        `${script.length - 8}:${script.length}: execution error: System Events got an error: Can’t get process 1 whose unix id = ${pid}. Invalid index. (-1719)`,
      );
    activate(process_.name);
    done("ok");
    break;
  }
  case "frontmost-process": {
    tell("systemEvents");
    done(String(state.processes.find((candidate) => candidate.name === state.frontmost)?.pid ?? ""));
    break;
  }
  case "notify": {
    // display notification (StandardAdditions): no Automation permission needed; what Notification Center shows.
    if (args[0] !== "argv:") fail("fake osascript: the notify script expects `argv:` as its first argument");
    state.notifications ??= [];
    state.notifications.push({ title: args[1], body: args[2], sound: args[3] === "1" });
    done("");
    break;
  }
  default:
    fail(`fake osascript: script ${name ?? "(unnamed)"} is not modelled`);
}
