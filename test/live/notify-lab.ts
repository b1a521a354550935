// A private desktop for the notification suites: a D-Bus session bus of its own (dbus-daemon with a config that
// activates nothing, on a socket in the sandbox), the dunst notification daemon on it, drawing on the suite's Xvfb; and
// agents (processes named exactly `claude`) in tmux panes that report events through the real hook when told to, so a
// test decides when an agent starts waiting. Everything started here is stopped by PID or by its private socket.
import { execFileSync, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_BIN } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import type { TmuxLab } from "./tmux-lab.ts";
import { waitFor } from "./tmux-lab.ts";
import { XServer, startProcess, stopProcess, waitAsync } from "./x-lab.ts";

export interface DunstNotification {
  readonly appname: string;
  readonly summary: string;
  readonly body: string;
}

/** dbus-daemon on a private socket, with dunst on it. */
export class NotifyDesktop {
  private bus: ChildProcess | undefined;
  private dunst: ChildProcess | undefined;
  readonly dir: string;
  readonly address: string;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly x: XServer,
  ) {
    this.dir = join(sandbox.root, "desktop");
    mkdirSync(this.dir, { recursive: true });
    this.address = `unix:path=${join(this.dir, "bus")}`;
  }

  /** The sandbox environment on this display and bus. */
  get env(): NodeJS.ProcessEnv {
    return { ...this.x.env, DBUS_SESSION_BUS_ADDRESS: this.address };
  }

  async start({ daemon = true }: { daemon?: boolean } = {}): Promise<this> {
    // No <servicedir>: nothing is activated on demand (Debian's dunst installs an activatable service file), so a
    // test without dunst really has no notification server.
    const config = join(this.dir, "bus.conf");
    writeFileSync(
      config,
      `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>${this.address}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n`,
    );
    this.bus = await startProcess("dbus-daemon", ["--nofork", `--config-file=${config}`], this.sandbox.env);
    await waitFor(() => existsSync(join(this.dir, "bus")), "dbus-daemon to listen");
    if (daemon) await this.startDunst();
    return this;
  }

  /**
   * `menu`: a program dunst runs as its context menu (its `dmenu` setting; `dunstctl context` opens it) that prints
   * the line of the action to invoke, standing in for the user's choice in a real menu.
   */
  async startDunst({ menu }: { menu?: string } = {}): Promise<void> {
    const config = join(this.dir, "dunstrc");
    if (menu !== undefined)
      writeFileSync(
        config,
        `[global]
    dmenu = ${menu}
`,
      );
    this.dunst = await startProcess("dunst", menu === undefined ? [] : ["-config", config], this.env);
    await waitAsync(async () => this.dunstctl("count").status === 0, "dunst to own org.freedesktop.Notifications", 20_000);
  }

  get dunstPid(): number {
    return this.dunst?.pid as number;
  }

  async stopDunst(): Promise<void> {
    await stopProcess(this.dunst);
    this.dunst = undefined;
  }

  dunstctl(...args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync("dunstctl", args, { env: this.env, encoding: "utf8", timeout: 10_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  displayed(): number {
    return Number(/Currently displayed:\s*(\d+)/.exec(this.dunstctl("count").stdout)?.[1] ?? "-1");
  }

  /** Every notification dunst received and closed, oldest first (close them first with closeAll). */
  history(): DunstNotification[] {
    const json = JSON.parse(execFileSync("dunstctl", ["history"], { env: this.env, encoding: "utf8" })) as {
      data: Record<string, { data: unknown }>[][];
    };
    return (json.data[0] ?? [])
      .map((entry) => ({ appname: String(entry.appname?.data), summary: String(entry.summary?.data), body: String(entry.body?.data) }))
      .reverse();
  }

  closeAll(): void {
    this.dunstctl("close-all");
  }

  async stop(): Promise<void> {
    // A test may have stopped it (SIGSTOP): it must run to handle SIGTERM. It may also have exited already.
    if (this.dunst?.pid !== undefined && alive(this.dunst.pid)) process.kill(this.dunst.pid, "SIGCONT");
    try {
      await stopProcess(this.dunst);
    } finally {
      await stopProcess(this.bus);
    }
  }
}

/** Agents in tmux panes that report session-start at once, and any event a test names, when it names it. */
export class TriggeredAgents {
  private readonly claude: string;
  private readonly dir: string;
  private count = 0;

  constructor(private readonly sandbox: Sandbox) {
    this.dir = join(sandbox.root, "triggered");
    mkdirSync(join(this.dir, "bin"), { recursive: true });
    this.claude = join(this.dir, "bin", "claude");
    symlinkSync(process.execPath, this.claude);
  }

  /** A shell command for a pane: the agent, in directory `cwd` (its name is what notifications show). */
  command(sessionId: string, cwd: string): string {
    mkdirSync(cwd, { recursive: true });
    const script = [
      `const cp = require("node:child_process"); const fs = require("node:fs");`,
      `const emit = (alias) => cp.spawnSync(process.execPath, [${JSON.stringify(HOOK_BIN)}, alias, "--agent", "claude"], { input: JSON.stringify({ session_id: ${JSON.stringify(sessionId)}, cwd: process.cwd(), tool_name: "Bash" }) }).status;`,
      `const log = (line) => fs.appendFileSync(${JSON.stringify(join(this.dir, `${sessionId}.log`))}, line + "\\n");`,
      `log("session-start " + emit("session-start"));`,
      `const trigger = ${JSON.stringify(join(this.dir, `${sessionId}.next`))};`,
      `setInterval(() => { if (!fs.existsSync(trigger)) return; const alias = fs.readFileSync(trigger, "utf8").trim(); fs.unlinkSync(trigger); const started = Date.now(); const status = emit(alias); log(alias + " " + status + " " + (Date.now() - started)); }, 50);`,
    ].join(" ");
    const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
    return `cd ${quote(cwd)} && exec ${quote(this.claude)} -e ${quote(script)}`;
  }

  /** An agent's argv (a shell running it in `repos/<name>`), started by the caller wherever it likes. */
  prepare(name: string): { sessionId: string; argv: string[] } {
    this.count++;
    const sessionId = `notify-${this.count}-${Math.random().toString(16).slice(2, 8)}`;
    return { sessionId, argv: ["sh", "-c", this.command(sessionId, join(this.sandbox.root, "repos", name))] };
  }

  /** Wait until the agent reported session-start through the hook. */
  async ready(sessionId: string): Promise<void> {
    await waitFor(
      () => this.lines(sessionId).some((line) => line === "session-start 0"),
      `agent ${sessionId} to report session-start`,
      30_000,
    );
  }

  /** Start an agent in a new window of tmux session `session` (created when missing); returns its pane. */
  async start(lab: TmuxLab, session: string, name: string): Promise<{ pane: string; sessionId: string }> {
    const { sessionId, argv } = this.prepare(name);
    const command = argv[2] as string;
    const exists = lab.tryTmux(lab.inner, "has-session", "-t", session).status === 0;
    const pane = exists
      ? lab.tmux(lab.inner, "new-window", "-d", "-t", `${session}:`, "-P", "-F", "#{pane_id}", command)
      : lab.tmux(lab.inner, "new-session", "-d", "-s", session, "-x", "100", "-y", "30", "-P", "-F", "#{pane_id}", command);
    await this.ready(sessionId);
    return { pane, sessionId };
  }

  /** Make the agent report `alias` now; resolves with the hook's exit status and its wall time in ms. */
  async emit(sessionId: string, alias: string): Promise<{ status: number; ms: number }> {
    const before = this.lines(sessionId).length;
    // Written whole, then renamed into place: the agent looks every 50 ms, and a file it found created but not yet
    // written would have sent an event with no name (under load, a test then waited for a notifier nothing started).
    const trigger = join(this.dir, `${sessionId}.next`);
    writeFileSync(`${trigger}.tmp`, alias);
    renameSync(`${trigger}.tmp`, trigger);
    await waitFor(() => this.lines(sessionId).length > before, `agent ${sessionId} to report ${alias}`, 20_000);
    const [sent, status, ms] = (this.lines(sessionId)[before] ?? "").split(" ");
    if (sent !== alias) throw new Error(`agent ${sessionId} reported ${JSON.stringify(sent)}, not ${alias}`);
    return { status: Number(status), ms: Number(ms) };
  }

  private lines(sessionId: string): string[] {
    const path = join(this.dir, `${sessionId}.log`);
    return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n") : [];
  }
}

export interface NotifyLogEntry {
  readonly pid: number;
  readonly mode: string;
  readonly outcome: string;
  readonly sessions?: string[];
  readonly suppressed?: string[];
  readonly deliveries?: { channel: string; outcome: string; detail: string }[];
  readonly result?: string;
  readonly focus?: { state: string; backend: string; target: string; activation: { succeeded: boolean; detail: string } };
}

/** The notifier's log lines so far (a line being written right now is left for the next read). */
export function notifyLog(stateDir: string): NotifyLogEntry[] {
  const path = join(stateDir, "notify.log");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.endsWith("}"))
    .map((line) => JSON.parse(line) as NotifyLogEntry);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Notification settings for a test: the config file in the sandbox's XDG_CONFIG_HOME. */
export function writeNotifyConfig(sandbox: Sandbox, notifications: Record<string, unknown>): void {
  const dir = join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ notifications }));
}

/** The first notifier log line that satisfies `predicate`, once there is one; the whole log in the error otherwise. */
export async function waitForLog(
  stateDir: string,
  predicate: (entry: NotifyLogEntry, index: number, all: NotifyLogEntry[]) => boolean,
  what: string,
): Promise<NotifyLogEntry> {
  await waitFor(() => notifyLog(stateDir).some(predicate), what, 30_000).catch((error: Error) => {
    throw new Error(`${error.message}; notify.log: ${JSON.stringify(notifyLog(stateDir))}`);
  });
  return notifyLog(stateDir).find(predicate) as NotifyLogEntry;
}

/** The `count`th decision ("delivered" line, whether or not anything was sent) the notifiers logged. */
export function nthDecision(stateDir: string, count: number): Promise<NotifyLogEntry> {
  return waitForLog(
    stateDir,
    (entry, index, all) =>
      entry.outcome === "delivered" && all.slice(0, index + 1).filter((line) => line.outcome === "delivered").length === count,
    `decision ${count}`,
  );
}

export interface NotifyLab {
  readonly sandbox: Sandbox;
  readonly x: XServer;
  readonly desktop: NotifyDesktop;
  readonly agents: TriggeredAgents;
}

/** A sandbox with Xvfb and a private bus with dunst; agents started from now on use them, with notifications on. */
export async function openNotifyLab(notifications: Record<string, unknown>): Promise<NotifyLab> {
  const sandbox = makeSandbox();
  const x = await new XServer(sandbox).start({ windowManager: false });
  const desktop = await new NotifyDesktop(sandbox, x).start();
  // The agents' environment (a tmux server's, a terminal's): this bus and display, notifications on.
  Object.assign(sandbox.env, desktop.env, { TONGS_AGENTS_NOTIFY: "on" });
  writeNotifyConfig(sandbox, notifications);
  return { sandbox, x, desktop, agents: new TriggeredAgents(sandbox) };
}

/** Stop everything (the caller's programs first) and prove no notifier was left running: one still waiting for a click sees the bus close and exits. */
export async function closeNotifyLab(lab: NotifyLab | undefined, stopFirst: () => Promise<void>): Promise<void> {
  if (!lab) return;
  try {
    await stopFirst();
  } finally {
    try {
      // dunst before the X server it draws on, or it exits under stopProcess's feet.
      await lab.desktop.stop();
    } finally {
      await lab.x.stop();
    }
  }
  for (const entry of notifyLog(lab.sandbox.stateDir)) await waitFor(() => !alive(entry.pid), `notifier ${entry.pid} to exit`, 10_000);
  lab.sandbox.cleanup();
}
