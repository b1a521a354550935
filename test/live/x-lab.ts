// A real X server for live tests: Xvfb on a display it picks itself (-displayfd, so parallel suites never collide),
// optionally the openbox window manager, the real xdotool, and agent processes (named exactly `claude`) that report
// session-start through the real hook from inside a terminal window. Everything started here is stopped by PID.
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { HOOK_BIN } from "../processes.ts";
import type { Sandbox } from "../sandbox.ts";
import { waitFor } from "./tmux-lab.ts";

export interface Agent {
  readonly sessionId: string;
  readonly marker: string;
  /** Lines the agent read from its terminal (what was typed into it). */
  readonly typedFile: string;
}

/** Start a program or fail the suite with the reason (never skip): a missing program names its package. */
export function startProcess(file: string, args: readonly string[], env: NodeJS.ProcessEnv, extraFd = false): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], {
      env,
      stdio: extraFd ? ["ignore", "ignore", "pipe", "pipe"] : ["ignore", "ignore", "pipe"],
      detached: false,
    });
    child.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === "ENOENT"
            ? `${file} is not installed: the live X11 suites need the packages scripts/test-setup.sh installs (run it as root)`
            : `${file}: ${error.message}`,
        ),
      ),
    );
    child.once("spawn", () => resolve(child));
  });
}

export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    process.kill(child.pid, "SIGTERM");
  } catch (error) {
    // Gone already (a terminal whose program ended, a daemon whose X server went), its exit not reported yet.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
  const timer = setTimeout(() => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, "SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

export async function waitAsync(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export class XServer {
  private xvfb: ChildProcess | undefined;
  private openbox: ChildProcess | undefined;
  private readonly terminals: ChildProcess[] = [];
  display = "";
  private stderr = "";

  constructor(private readonly sandbox: Sandbox) {}

  /** The sandbox environment on this display, for programs the test starts (terminals, the window manager). */
  get env(): NodeJS.ProcessEnv {
    return { ...this.sandbox.env, DISPLAY: this.display };
  }

  async start({ windowManager }: { windowManager: boolean }): Promise<this> {
    this.xvfb = await startProcess(
      "Xvfb",
      ["-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp", "-noreset"],
      this.sandbox.env,
      true,
    );
    this.xvfb.stderr?.on("data", (chunk) => (this.stderr = (this.stderr + String(chunk)).slice(-2000)));
    const fd = this.xvfb.stdio[3] as NodeJS.ReadableStream;
    let number = "";
    fd.on("data", (chunk) => (number += String(chunk)));
    await waitFor(() => number.includes("\n") || this.xvfb?.exitCode !== null, "Xvfb to report its display", 20_000);
    if (!number.includes("\n")) throw new Error(`Xvfb exited: ${this.stderr}`);
    this.display = `:${number.trim()}`;
    if (windowManager) await this.startWindowManager();
    return this;
  }

  /** openbox; started after a program, that program found no EWMH window manager at its own start-up. */
  async startWindowManager(): Promise<void> {
    this.openbox = await startProcess("openbox", ["--sm-disable"], this.env);
    await waitFor(
      () => spawnSync("wmctrl", ["-m"], { env: this.env, encoding: "utf8" }).stdout.includes("Openbox"),
      "openbox to manage the display",
      20_000,
    );
  }

  xdotool(...args: string[]): string {
    return execFileSync("xdotool", args, { env: this.env, encoding: "utf8" }).trim();
  }

  /** The window the user is at: the manager's active window, or the input focus without a manager. */
  focusedWindow(): number {
    return Number(this.xdotool(this.openbox ? "getactivewindow" : "getwindowfocus"));
  }

  /** Real keystrokes into whatever has the X input focus. */
  type(text: string): void {
    this.xdotool("type", "--delay", "15", text);
    this.xdotool("key", "Return");
  }

  /** A plain X11 terminal (xterm sets WINDOWID) running `argv`; stopped with the server. */
  async xterm(argv: readonly string[]): Promise<ChildProcess> {
    const child = await startProcess("xterm", ["-fa", "DejaVu Sans Mono", "-fs", "9", "-geometry", "80x20", "-e", ...argv], this.env);
    this.terminals.push(child);
    return child;
  }

  async stop(): Promise<void> {
    for (const terminal of this.terminals) await stopProcess(terminal);
    await stopProcess(this.openbox);
    await stopProcess(this.xvfb);
  }
}

/** Runs agents: a process named exactly `claude` that reports session-start through the real hook. */
export class Agents {
  private readonly claude: string;
  private readonly dir: string;
  private count = 0;

  constructor(private readonly sandbox: Sandbox) {
    this.dir = join(sandbox.root, "agents");
    mkdirSync(join(this.dir, "bin"), { recursive: true });
    this.claude = join(this.dir, "bin", "claude");
    symlinkSync(process.execPath, this.claude);
  }

  /** argv of a new agent: reports session-start, prints its marker, then records what is typed into its terminal. */
  next(): { argv: string[]; agent: Agent } {
    this.count++;
    const sessionId = `x-lab-${this.count}-${Math.random().toString(16).slice(2, 8)}`;
    const agent = { sessionId, marker: `AGENT-MARKER-${this.count}`, typedFile: join(this.dir, `${sessionId}.typed`) };
    const script = [
      `const cp = require("node:child_process"); const fs = require("node:fs");`,
      `const r = cp.spawnSync(process.execPath, [${JSON.stringify(HOOK_BIN)}, "session-start", "--agent", "claude"], { input: JSON.stringify({ session_id: ${JSON.stringify(sessionId)}, cwd: process.cwd() }) });`,
      `process.stdout.write(${JSON.stringify(agent.marker)} + "\\nhook exit " + r.status + "\\n");`,
      `fs.writeFileSync(${JSON.stringify(join(this.dir, `${sessionId}.ready`))}, JSON.stringify({ status: r.status, windowId: process.env.WINDOWID }));`,
      `process.stdin.on("data", (d) => fs.appendFileSync(${JSON.stringify(agent.typedFile)}, d));`,
    ].join(" ");
    return { argv: [this.claude, "-e", script], agent };
  }

  /** Wait until the agent's hook has run, and fail loudly if it did not succeed. Returns the agent's WINDOWID. */
  async ready(agent: Agent): Promise<number> {
    const file = join(this.dir, `${agent.sessionId}.ready`);
    // The file is created empty, then written: wait for the status itself.
    await waitFor(() => existsSync(file) && readFileSync(file, "utf8") !== "", `agent ${agent.sessionId} to run its hook`, 30_000);
    const { status, windowId } = JSON.parse(readFileSync(file, "utf8")) as { status: number | null; windowId?: string };
    if (status !== 0) throw new Error(`the hook of ${agent.sessionId} exited ${status}`);
    return Number(windowId);
  }

  typed(agent: Agent): string {
    return existsSync(agent.typedFile) ? readFileSync(agent.typedFile, "utf8") : "";
  }
}
