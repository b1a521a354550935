// A real kitty under Xvfb for live tests. Setup and reading the screen go over kitty's remote-control socket (the
// `kitty @` client costs 0.3-2 s a call on a loaded machine); what the user sees is proven independently of it, by
// real keystrokes (xdotool) landing in exactly one window.
import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseListenOn, sendCommand } from "../../backends/kitty/rc.ts";
import type { Sandbox } from "../sandbox.ts";
import { startProcess, stopProcess, waitAsync, type Agent, type Agents, type XServer } from "./x-lab.ts";

export interface KittyAgent extends Agent {
  readonly windowId: number;
}

interface LsWindow {
  id: number;
  is_active_window: boolean;
  env: Record<string, string>;
}
interface LsTab {
  id: number;
  is_active_tab: boolean;
  windows: LsWindow[];
}
export interface LsOsWindow {
  id: number;
  is_focused: boolean;
  platform_window_id: number;
  tabs: LsTab[];
}

export type KittyStart =
  | { readonly remoteControl: "command-line" }
  /** kitty.conf with `allow_remote_control socket-only` and `listen_on unix:<dir>/kitty` (kitty appends -<pid>). */
  | { readonly remoteControl: "kitty.conf" }
  /** No remote control at all; the first window runs `firstWindow`. */
  | { readonly remoteControl: "off"; readonly firstWindow: readonly string[] };

export class KittyLab {
  private process: ChildProcess | undefined;
  private stderr = "";
  /** The listen address as kitty exports it to its windows (KITTY_LISTEN_ON). */
  listenOn = "";

  constructor(
    private readonly x: XServer,
    private readonly sandbox: Sandbox,
    private readonly name = "kitty",
  ) {}

  async start(how: KittyStart = { remoteControl: "command-line" }): Promise<this> {
    const dir = join(this.sandbox.root, this.name);
    mkdirSync(dir, { recursive: true });
    const common = [
      "-o",
      "enabled_layouts=splits,stack",
      "-o",
      "confirm_os_window_close=0",
      "-o",
      "font_size=9",
      "-o",
      "initial_window_width=600",
      "-o",
      "initial_window_height=400",
    ];
    let args: string[];
    let env = this.x.env;
    if (how.remoteControl === "command-line") {
      const socket = join(dir, "sock");
      args = ["--config", "NONE", "-o", "allow_remote_control=yes", "--listen-on", `unix:${socket}`, ...common, "sleep", "100000"];
      this.listenOn = `unix:${socket}`;
    } else if (how.remoteControl === "kitty.conf") {
      const config = join(dir, "config");
      mkdirSync(config, { recursive: true });
      writeFileSync(join(config, "kitty.conf"), `allow_remote_control socket-only\nlisten_on unix:${join(dir, "kitty")}\n`);
      env = { ...env, KITTY_CONFIG_DIRECTORY: config };
      args = [...common, "sleep", "100000"];
    } else {
      args = ["--config", "NONE", ...common, ...how.firstWindow];
    }
    this.process = await startProcess("kitty", args, env);
    this.process.stderr?.on("data", (chunk) => (this.stderr = (this.stderr + String(chunk)).slice(-4000)));
    if (how.remoteControl === "kitty.conf") this.listenOn = `unix:${join(dir, "kitty")}-${this.process.pid}`;
    // Without remote control the caller waits for the agent in the first window instead.
    if (how.remoteControl !== "off") {
      await waitAsync(
        async () =>
          this.exited() ||
          (await this.rc("ls", undefined, 1000).then(
            () => true,
            () => false,
          )),
        "kitty's remote-control socket to answer",
        30_000,
      );
    }
    if (this.exited()) throw new Error(`kitty exited at start-up (${this.process.exitCode}): ${this.stderr}`);
    return this;
  }

  private exited(): boolean {
    return this.process?.exitCode !== null && this.process?.exitCode !== undefined;
  }

  get pid(): number {
    return this.process?.pid as number;
  }

  /** One remote-control command; throws on anything but success. */
  async rc(cmd: string, payload?: Record<string, unknown>, timeoutMs = 15_000): Promise<unknown> {
    const address = parseListenOn(this.listenOn);
    if (!address) throw new Error(`cannot parse ${this.listenOn}`);
    const reply = await sendCommand(address, cmd, payload, timeoutMs);
    if (reply.kind !== "ok") throw new Error(`kitty ${cmd}: ${reply.kind === "error" ? reply.error : reply.detail}`);
    return reply.data;
  }

  async ls(): Promise<LsOsWindow[]> {
    return JSON.parse((await this.rc("ls")) as string) as LsOsWindow[];
  }

  /** A new OS window, tab, or split next to `splitOf`, running `argv`; returns the new window's id. */
  async launch(argv: readonly string[], type: "os-window" | "tab" | "window" | "overlay", near?: number): Promise<number> {
    let match: Record<string, string> = {};
    if (near !== undefined) {
      const tab = (await this.ls()).flatMap((os) => os.tabs).find((candidate) => candidate.windows.some((window) => window.id === near));
      if (!tab) throw new Error(`no tab holds window ${near}`);
      match = { match: `id:${tab.id}` };
    }
    const id = await this.rc("launch", {
      args: [...argv],
      type,
      cwd: this.sandbox.root,
      ...(type === "window" ? { location: "vsplit" } : {}),
      ...match,
    });
    return Number(id);
  }

  async launchAgent(agents: Agents, type: "os-window" | "tab" | "window", near?: number): Promise<KittyAgent> {
    const { argv, agent } = agents.next();
    const windowId = await this.launch(argv, type, near);
    await agents.ready(agent);
    return { ...agent, windowId };
  }

  async windowIds(): Promise<number[]> {
    return (await this.ls()).flatMap((os) => os.tabs.flatMap((tab) => tab.windows.map((window) => window.id)));
  }

  async text(windowId: number): Promise<string> {
    return (await this.rc("get-text", { match: `id:${windowId}`, extent: "all" })) as string;
  }

  /** The kitty windows whose screen shows `token`. */
  async windowsShowing(token: string): Promise<number[]> {
    const showing: number[] = [];
    for (const id of await this.windowIds()) if ((await this.text(id)).includes(token)) showing.push(id);
    return showing;
  }

  /** The X id of the OS window that holds a kitty window. */
  async xidOf(windowId: number): Promise<number> {
    const os = (await this.ls()).find((candidate) => candidate.tabs.some((tab) => tab.windows.some((window) => window.id === windowId)));
    if (!os) throw new Error(`no OS window holds window ${windowId}`);
    return os.platform_window_id;
  }

  async stop(): Promise<void> {
    await stopProcess(this.process);
  }
}

/**
 * The proof that a kitty window is the one the user is at: type a fresh token with real keystrokes and find which
 * windows show it. Returns those windows (the test expects exactly the target).
 */
export async function typedInto(x: XServer, kitties: readonly KittyLab[], label: string): Promise<{ token: string; windows: string[] }> {
  const token = `tok${label}${Math.random().toString(36).slice(2, 8)}`;
  x.type(token);
  let windows: string[] = [];
  const started = Date.now();
  while (Date.now() - started < 15_000) {
    windows = [];
    for (const [index, kitty] of kitties.entries()) for (const id of await kitty.windowsShowing(token)) windows.push(`${index}:${id}`);
    if (windows.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { token, windows };
}
