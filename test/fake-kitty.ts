// A stateful fake kitty for unit tests: it listens on a real unix socket and speaks the remote-control protocol with
// the framing, reply texts and `ls` shape observed from kitty 0.26.5 (facts/terminals.md; the recorded `ls` is
// test/fixtures/kitty/ls-0.26.5.json). It models what focus needs: OS windows (focused, minimized), tabs (active
// window), windows, overlays. The live suites check the same behaviour against the real kitty.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "\x1bP@kitty-cmd";
const SUFFIX = "\x1b\\";

interface OsWindow {
  id: number;
  xid: number;
  minimized: boolean;
  activeTab: number;
  tabs: number[];
}
interface Tab {
  id: number;
  os: number;
  activeWindow: number;
  windows: number[];
}

export interface FakeKittyOptions {
  /** Reply shape: kitty 0.26 (`is_active_tab`, `is_active_window`) or newer kitty (`is_active`). */
  readonly shape?: "0.26" | "newer";
  /** What kitty answers instead of running commands. */
  readonly refuse?: string;
  /** Accept connections and never answer (a kitty that expects another framing, or a hung one). */
  readonly silent?: boolean;
  /** kitty's own version: it refuses a client that says it is newer. */
  readonly version?: readonly [number, number, number];
}

export class FakeKitty {
  readonly dir = mkdtempSync(join(tmpdir(), "fake-kitty-"));
  readonly path = join(this.dir, "kitty-123");
  readonly listenOn = `unix:${this.path}`;
  /** Every request frame received, as sent. */
  readonly frames: string[] = [];
  /** The OS window the X server says has the focus (0: another application). */
  focusedOs = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly oses = new Map<number, OsWindow>();
  private readonly tabs = new Map<number, Tab>();
  /** window id -> tab id */
  private readonly windows = new Map<number, number>();
  /** window id -> id of the overlay window shown over it */
  private readonly overlays = new Map<number, number>();
  private nextId = { os: 1, tab: 1, window: 1 };

  constructor(private readonly options: FakeKittyOptions = {}) {
    this.server = createServer((socket) => this.serve(socket));
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(this.path, resolve));
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A new OS window with one tab and one window; it takes the focus, as a new kitty OS window does. */
  osWindow(): { os: number; xid: number; tab: number; window: number } {
    const os = this.nextId.os++;
    const xid = 0x200000 + os * 0x18;
    this.oses.set(os, { id: os, xid, minimized: false, activeTab: 0, tabs: [] });
    const { tab, window } = this.tab(os);
    this.focusedOs = os;
    return { os, xid, tab, window };
  }

  tab(os: number): { tab: number; window: number } {
    const osWindow = this.oses.get(os) as OsWindow;
    const tab = this.nextId.tab++;
    this.tabs.set(tab, { id: tab, os, activeWindow: 0, windows: [] });
    osWindow.tabs.push(tab);
    osWindow.activeTab = tab;
    return { tab, window: this.split(tab) };
  }

  split(tab: number): number {
    const window = this.nextId.window++;
    const record = this.tabs.get(tab) as Tab;
    record.windows.push(window);
    record.activeWindow = window;
    this.windows.set(window, tab);
    return window;
  }

  /** An overlay over a window (a kitten, a permission prompt): it becomes the active window whenever that one is. */
  overlay(window: number): number {
    const tab = this.windows.get(window) as number;
    const overlay = this.split(tab);
    this.overlays.set(window, overlay);
    return overlay;
  }

  closeWindow(window: number): void {
    const tab = this.tabs.get(this.windows.get(window) as number) as Tab;
    tab.windows = tab.windows.filter((id) => id !== window);
    this.windows.delete(window);
  }

  minimize(os: number): void {
    (this.oses.get(os) as OsWindow).minimized = true;
    if (this.focusedOs === os) this.focusedOs = 0;
  }

  /** What `xdotool windowactivate` does under a window manager: restore and focus. */
  activateX(xid: number): boolean {
    const os = [...this.oses.values()].find((candidate) => candidate.xid === xid);
    if (!os) return false;
    os.minimized = false;
    this.focusedOs = os.id;
    return true;
  }

  get focusedXid(): number | undefined {
    return this.oses.get(this.focusedOs)?.xid;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      const end = buffer.indexOf(SUFFIX);
      if (!buffer.startsWith(PREFIX) || end < 0) return;
      const text = buffer.slice(0, end + SUFFIX.length);
      buffer = buffer.slice(end + SUFFIX.length);
      this.frames.push(text);
      if (this.options.silent) return;
      // Like kitty, the connection stays open after the reply: the client closes it.
      socket.write(`${PREFIX}${JSON.stringify(this.handle(JSON.parse(text.slice(PREFIX.length, -SUFFIX.length))))}${SUFFIX}`);
    });
    socket.on("error", () => undefined);
  }

  private handle(request: { cmd: string; version: number[]; payload?: { match?: string } }): Record<string, unknown> {
    if (this.options.refuse) return { ok: false, error: this.options.refuse };
    const [major = 0, minor = 0] = request.version;
    const [ownMajor, ownMinor] = this.options.version ?? [0, 26, 5];
    if (major > ownMajor || (major === ownMajor && minor > ownMinor))
      return {
        ok: false,
        error: "The kitty client you are using to send remote commands is newer than this kitty instance. This is not supported.",
      };
    return this.run(request.cmd, request.payload?.match);
  }

  /** What `kitten @ --to <socket> ls|focus-window --match id:N` prints and exits with, for a fake CLI runner. */
  cli(args: readonly string[]): { ok: boolean; code: number; stdout: string; stderr: string } {
    const cmd = args[3] as string;
    const match = args[4] === "--match" ? args[5] : undefined;
    if (this.options.refuse) return { ok: false, code: 1, stdout: "", stderr: this.options.refuse };
    const reply = this.run(cmd, match);
    if (reply.ok) return { ok: true, code: 0, stdout: typeof reply.data === "string" ? reply.data : "", stderr: "" };
    return { ok: false, code: 1, stdout: "", stderr: String(reply.error) };
  }

  private run(cmd: string, match: string | undefined): Record<string, unknown> {
    if (cmd === "ls") return { ok: true, data: JSON.stringify(this.ls(), null, 2) };
    if (cmd === "focus-window") {
      const window = Number(/^id:(\d+)$/.exec(match ?? "")?.[1]);
      if (!this.windows.has(window)) return { ok: false, error: `No matching windows for expression: ${match}` };
      this.focus(window);
      return { ok: true };
    }
    return { ok: false, error: `'Unknown kitty remote control command: ${cmd}'`, tb: "Traceback (most recent call last): ..." };
  }

  private focus(window: number): void {
    const tab = this.tabs.get(this.windows.get(window) as number) as Tab;
    tab.activeWindow = this.overlays.get(window) ?? window;
    const os = this.oses.get(tab.os) as OsWindow;
    os.activeTab = tab.id;
    // kitty asks the window manager for the focus; a minimized OS window stays minimized (observed with openbox).
    if (!os.minimized) this.focusedOs = os.id;
  }

  /** `ls` as kitty 0.26.5 builds it (boss.py list_os_windows, tabs.py list_tabs/list_windows). */
  private ls(): unknown[] {
    const newer = this.options.shape === "newer";
    return [...this.oses.values()].map((os) => ({
      id: os.id,
      is_active: os.id === this.focusedOs,
      is_focused: os.id === this.focusedOs,
      last_focused: os.id === this.focusedOs,
      platform_window_id: os.xid,
      tabs: os.tabs.map((tabId) => {
        const tab = this.tabs.get(tabId) as Tab;
        const activeTab = os.activeTab === tab.id;
        return {
          id: tab.id,
          is_focused: activeTab && os.id === this.focusedOs,
          ...(newer ? { is_active: activeTab } : { is_active_tab: activeTab }),
          title: "tab",
          windows: tab.windows.map((window) => ({
            id: window,
            // 0.26: focused OS window and active in its tab, whether or not the tab is active.
            is_focused: os.id === this.focusedOs && tab.activeWindow === window,
            ...(newer ? { is_active: tab.activeWindow === window } : { is_active_window: tab.activeWindow === window }),
            env: { KITTY_WINDOW_ID: String(window), SECRET_TOKEN: "must-never-be-logged" },
            cmdline: ["claude"],
          })),
        };
      }),
    }));
  }
}
