// A stateful fake of `wezterm cli` (MOCKED: WezTerm cannot run here). Modelled on WezTerm 20240203-110809-5046fc22 from
// its source and docs: wezterm/src/cli/{mod,list,list_clients,activate_pane}.rs and the mux server's SetFocusedPane
// handler. What it models:
// - instance selection: $WEZTERM_UNIX_SOCKET, else the default GUI instance; a dead or missing socket fails with the
//   CLI's log line, and without --no-auto-start the CLI first tries to spawn a mux server (counted in `autoStarted`);
// - `list --format json`: one row per pane (window_id, tab_id, pane_id, workspace, title, cwd, is_active, ...);
// - `list-clients --format json`: the GUI clients (pid, workspace, idle_time, focused_pane_id) plus this CLI
//   connection itself (focused_pane_id null);
// - `activate-pane --pane-id N`: unknown pane -> "pane N not found"; else the pane's tab becomes its window's active
//   tab, the pane its tab's active pane, and the GUI reconciles its focus to N (PaneFocused). It never raises the OS
//   window (wez/wezterm#7990). With `crossWindowBug` (wez/wezterm#5536) the GUI keeps its focus when N is in another
//   window than the one it focuses.
import { fail, loadState, logCall, print, saveState } from "./fake-state.mjs";

const argv = process.argv.slice(2);
logCall("wezterm", argv);
const state = loadState("wezterm");

const stamp = () => new Date().toISOString().slice(11, 23);
const logError = (message) => fail(`${stamp()}  ERROR  wezterm > ${message}; terminating`);
const clapError = (message) => fail(`error: ${message}\n\nFor more information, try '--help'.`, 2);

if (argv[0] === "--version" || argv[0] === "-V") {
  print(`wezterm ${state.version}`);
  process.exit(0);
}
if (argv[0] !== "cli") clapError(`unrecognized subcommand '${argv[0] ?? ""}'`);

let index = 1;
const globals = { noAutoStart: false };
for (; index < argv.length && argv[index].startsWith("--"); index++) {
  if (argv[index] === "--no-auto-start") globals.noAutoStart = true;
  else if (argv[index] === "--prefer-mux") continue;
  else if (argv[index] === "--class") index++;
  else clapError(`unexpected argument '${argv[index]}' found`);
}
const [sub, ...rest] = argv.slice(index);

function option(name) {
  const at = rest.indexOf(name);
  return at < 0 ? undefined : rest[at + 1];
}

// Connect to the instance.
const socket = process.env.WEZTERM_UNIX_SOCKET || state.defaultSocket;
const instance = socket ? state.instances[socket] : undefined;
if (!instance || !instance.alive) {
  const why = instance ? "Connection refused (os error 111)" : "No such file or directory (os error 2)";
  if (!globals.noAutoStart) {
    state.autoStarted = (state.autoStarted ?? 0) + 1;
    saveState("wezterm", state);
    process.stderr.write(
      `${stamp()}  WARN   wezterm_client::client > While connecting to Socket("${socket}"): connecting to ${socket}: ${why}.  Will try spawning the server.\n`,
    );
    logError(`(after spawning server) failed to connect to Socket("${socket}"): connecting to ${socket}: ${why}`);
  }
  logError(`failed to connect to Socket("${socket}"): connecting to ${socket}: ${why}`);
}

const panes = () =>
  instance.windows.flatMap((window) =>
    window.tabs.flatMap((tab, tabIndex) => tab.panes.map((pane, paneIndex) => ({ window, tab, tabIndex, pane, paneIndex }))),
  );
const locate = (paneId) => panes().find((entry) => entry.pane.id === paneId);
const format = () => {
  const value = option("--format") ?? "table";
  if (value !== "json" && value !== "table") clapError(`invalid value '${value}' for '--format <FORMAT>': unknown output format`);
  return value;
};

switch (sub) {
  case "list": {
    if (format() !== "json") fail("fake wezterm: only --format json is modelled");
    const rows = panes().map(({ window, tab, pane, paneIndex }) => ({
      window_id: window.id,
      tab_id: tab.id,
      pane_id: pane.id,
      workspace: window.workspace,
      size: { rows: 24, cols: 80, pixel_width: 640, pixel_height: 384, dpi: 96 },
      title: pane.title,
      cwd: pane.cwd,
      cursor_x: 0,
      cursor_y: 0,
      cursor_shape: "Default",
      cursor_visibility: "Visible",
      left_col: 0,
      top_row: 0,
      tab_title: tab.title ?? "",
      window_title: window.title ?? "",
      is_active: tab.activePane === paneIndex,
      is_zoomed: false,
      is_floating: false,
      tty_name: pane.tty ?? null,
    }));
    print(JSON.stringify(rows, null, 2));
    break;
  }
  case "list-clients": {
    if (format() !== "json") fail("fake wezterm: only --format json is modelled");
    const duration = (secs) => ({ secs: Math.floor(secs), nanos: Math.round((secs % 1) * 1e9) });
    const rows = instance.clients.map((client) => ({
      username: client.username ?? "user",
      hostname: client.hostname ?? "host",
      pid: client.pid,
      connection_elapsed: duration(600),
      idle_time: duration(client.idleSecs ?? 1),
      workspace: client.workspace ?? "default",
      focused_pane_id: client.focusedPane ?? null,
    }));
    rows.push({
      username: "user",
      hostname: "host",
      pid: process.pid,
      connection_elapsed: duration(0.001),
      idle_time: duration(0.001),
      workspace: "",
      focused_pane_id: null,
    });
    print(JSON.stringify(rows, null, 2));
    break;
  }
  case "activate-pane": {
    const raw = option("--pane-id") ?? process.env.WEZTERM_PANE;
    if (raw === undefined)
      logError(
        "--pane-id was not specified and $WEZTERM_PANE is not set in the environment, and I couldn't determine which pane was currently focused",
      );
    if (!/^\d+$/.test(raw)) clapError(`invalid value '${raw}' for '--pane-id <PANE_ID>': invalid digit found in string`);
    const paneId = Number(raw);
    const found = locate(paneId);
    if (!found) logError(`pane ${paneId} not found`);
    found.window.activeTab = found.tabIndex;
    found.tab.activePane = found.paneIndex;
    for (const client of instance.clients) {
      const current = client.focusedPane === null || client.focusedPane === undefined ? undefined : locate(client.focusedPane);
      if (instance.crossWindowBug && current && current.window.id !== found.window.id) continue;
      client.focusedPane = paneId;
      client.workspace = found.window.workspace;
    }
    saveState("wezterm", state);
    break;
  }
  default:
    clapError(`unrecognized subcommand '${sub ?? ""}'`);
}
