// Starting states for the fakes (MOCKED worlds), shaped like what the real programs report.

export const WEZTERM_VERSION = "20240203-110809-5046fc22";
export const GUI_PID = 4242;
export const GUI_XID = 41943043;
export const OTHER_XID = 20971522;
export const FAKE_DISPLAY = ":fake";

export interface WeztermPane {
  id: number;
  title: string;
  cwd: string;
  tty: string;
}
export interface WeztermTab {
  id: number;
  title?: string;
  activePane: number;
  panes: WeztermPane[];
}
export interface WeztermWindow {
  id: number;
  workspace: string;
  title?: string;
  activeTab: number;
  tabs: WeztermTab[];
}
export interface WeztermInstance {
  alive: boolean;
  crossWindowBug?: boolean;
  windows: WeztermWindow[];
  clients: { pid: number; workspace?: string; focusedPane: number | null; idleSecs?: number }[];
}
export interface WeztermState {
  version: string;
  defaultSocket?: string;
  autoStarted?: number;
  instances: Record<string, WeztermInstance>;
}

const pane = (id: number): WeztermPane => ({ id, title: `pane ${id}`, cwd: "file://host/home/user/project", tty: `/dev/pts/${10 + id}` });

/**
 * One GUI (pid 4242) with `windows` OS windows. Window 0: tab 0 (pane 0), tab 1 (panes 1 and 2, split). Window 1 (when
 * asked for): tab 2 (pane 3). The GUI focuses pane 0.
 */
export function weztermWorld(socket: string, { windows = 2, crossWindowBug = false } = {}): WeztermState {
  const all: WeztermWindow[] = [
    {
      id: 0,
      workspace: "default",
      activeTab: 0,
      tabs: [
        { id: 0, activePane: 0, panes: [pane(0)] },
        { id: 1, activePane: 0, panes: [pane(1), pane(2)] },
      ],
    },
    { id: 1, workspace: "default", activeTab: 0, tabs: [{ id: 2, activePane: 0, panes: [pane(3)] }] },
  ];
  return {
    version: WEZTERM_VERSION,
    defaultSocket: socket,
    autoStarted: 0,
    instances: {
      [socket]: {
        alive: true,
        crossWindowBug,
        windows: all.slice(0, windows),
        clients: [{ pid: GUI_PID, workspace: "default", focusedPane: 0, idleSecs: 2 }],
      },
    },
  };
}

export interface XdotoolState {
  display: string;
  wm: boolean;
  refuseActivation?: boolean;
  active: number;
  windows: { id: number; pid: number; name: string; minimized?: boolean }[];
}

/** An X display with a window manager, WezTerm's window (pid 4242) behind another application's active window. */
export function xdotoolWorld({ wm = true, guiWindows = 1 } = {}): XdotoolState {
  const gui = Array.from({ length: guiWindows }, (_, index) => ({ id: GUI_XID + index, pid: GUI_PID, name: "wezterm" }));
  return { display: FAKE_DISPLAY, wm, active: OTHER_XID, windows: [...gui, { id: OTHER_XID, pid: 999, name: "editor" }] };
}

export interface TerminalTab {
  tty: string;
  selected: boolean;
}
export interface ITermTab {
  currentSession: number;
  sessions: { id: string; tty: string }[];
}
export interface OsascriptState {
  automation: Partial<Record<"terminal" | "iterm2" | "systemEvents", "granted" | "denied">>;
  activationBlocked?: boolean;
  frontmost: string;
  processes: { pid: number; name: string }[];
  terminal: { running: boolean; windows: { id: number; tabs: TerminalTab[] }[] };
  iterm2: { running: boolean; windows: { id: string; currentTab: number; tabs: ITermTab[] }[] };
}

export const ITERM_IDS = {
  a: "0F5D3C2B-7A61-4E8F-9B1C-2D3E4F5A6B7C",
  b: "5E1C5C89-1B2A-4F3D-9C8E-0A1B2C3D4E5F",
  c: "9A8B7C6D-5E4F-4A3B-8C2D-1E0F9A8B7C6D",
  d: "C4D5E6F7-0819-4A2B-9C3D-4E5F60718293",
};

/**
 * Terminal.app: window 1 (front) has /dev/ttys001 (selected) and /dev/ttys0041 (a decoy whose name starts like the
 * target's); window 2 has /dev/ttys007 (selected) and /dev/ttys004. iTerm2: window A (current) has one tab (session
 * a); window B has tab 0 (session b) current and tab 1 split into sessions c (current) and d. Finder is in front.
 */
export function osascriptWorld(): OsascriptState {
  return {
    automation: { terminal: "granted", iterm2: "granted", systemEvents: "granted" },
    frontmost: "Finder",
    processes: [
      { pid: 301, name: "Finder" },
      { pid: 302, name: "Terminal" },
      { pid: 303, name: "iTerm2" },
      { pid: GUI_PID, name: "wezterm-gui" },
    ],
    terminal: {
      running: true,
      windows: [
        {
          id: 1001,
          tabs: [
            { tty: "/dev/ttys001", selected: true },
            { tty: "/dev/ttys0041", selected: false },
          ],
        },
        {
          id: 1002,
          tabs: [
            { tty: "/dev/ttys007", selected: true },
            { tty: "/dev/ttys004", selected: false },
          ],
        },
      ],
    },
    iterm2: {
      running: true,
      windows: [
        { id: "window-a", currentTab: 0, tabs: [{ currentSession: 0, sessions: [{ id: ITERM_IDS.a, tty: "/dev/ttys010" }] }] },
        {
          id: "window-b",
          currentTab: 0,
          tabs: [
            { currentSession: 0, sessions: [{ id: ITERM_IDS.b, tty: "/dev/ttys011" }] },
            {
              currentSession: 0,
              sessions: [
                { id: ITERM_IDS.c, tty: "/dev/ttys012" },
                { id: ITERM_IDS.d, tty: "/dev/ttys013" },
              ],
            },
          ],
        },
      ],
    },
  };
}
