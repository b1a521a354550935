// Real GNU screen for live tests: sessions in a private SCREENDIR, windows where a process named exactly `claude` reports
// session-start through the real hook, and an attached screen client running inside an outer tmux pane, so a test can
// read exactly what that client shows (the same trick as tmux-lab.ts).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_BIN } from "../processes.ts";
import type { Sandbox } from "../sandbox.ts";
import { waitFor } from "./tmux-lab.ts";

export interface AgentWindow {
  readonly sty: string;
  readonly window: number;
  readonly sessionId: string;
  readonly marker: string;
}

export interface ScreenClientView {
  readonly outerSession: string;
  /** PID of the `screen -r` client process (the outer pane's process: the command execs screen). */
  readonly pid: number;
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Fails, never skips, when screen is missing: the suite cannot prove anything without it. */
export function screenVersion(): string {
  const result = spawnSync("screen", ["--version"], { encoding: "utf8" });
  if (result.error || result.status === null)
    throw new Error(
      `GNU screen is required for the live screen suite and is not installed (apt-get install screen): ${result.error?.message ?? "no exit status"}`,
    );
  return result.stdout.trim();
}

export class ScreenLab {
  readonly screenDir: string;
  readonly outer: string;
  /** The environment every screen command and the CLI run with (it carries the private SCREENDIR). */
  readonly env: NodeJS.ProcessEnv;
  private readonly dir: string;
  private readonly claude: string;
  private readonly sessions = new Set<string>();
  private agents = 0;

  constructor(
    private readonly sandbox: Sandbox,
    name = "lab",
  ) {
    this.dir = join(sandbox.root, `screen-${name}`);
    this.screenDir = join(this.dir, "sockets");
    mkdirSync(this.screenDir, { recursive: true, mode: 0o700 });
    this.outer = join(this.dir, "outer");
    const bin = join(this.dir, "bin");
    mkdirSync(bin);
    this.claude = join(bin, "claude");
    symlinkSync(process.execPath, this.claude);
    this.env = { ...sandbox.env, SCREENDIR: this.screenDir };
  }

  screen(...args: string[]): string {
    return execFileSync("screen", args, { encoding: "utf8", env: this.env }).trimEnd();
  }

  tryScreen(...args: string[]): { status: number | null; stdout: string } {
    const result = spawnSync("screen", args, { encoding: "utf8", env: this.env });
    return { status: result.status, stdout: `${result.stdout}${result.stderr}`.trim() };
  }

  tmux(...args: string[]): string {
    return execFileSync("tmux", ["-S", this.outer, ...args], { encoding: "utf8", env: this.env }).trimEnd();
  }

  /** A script file per window, so nothing passes through screen's `$VAR` expansion of `-X` arguments. */
  private script(body: string): string {
    const path = join(this.dir, `window-${++this.agents}.sh`);
    writeFileSync(path, `${body}\n`);
    return path;
  }

  private agentScript(sessionId: string, marker: string): { path: string; ready: string } {
    const ready = join(this.dir, `ready-${sessionId}`);
    const script = [
      `const r = require("node:child_process").spawnSync(process.execPath, [${JSON.stringify(HOOK_BIN)}, "session-start", "--agent", "claude"], { input: JSON.stringify({ session_id: ${JSON.stringify(sessionId)}, cwd: process.cwd() }) });`,
      `process.stdout.write(${JSON.stringify(`${marker}\n`)} + "hook exit " + r.status + "\\n");`,
      `require("node:fs").writeFileSync(${JSON.stringify(ready)}, String(r.status));`,
      "setInterval(() => {}, 1e6);",
    ].join(" ");
    const env = ["TONGS_AGENTS_STATE_DIR", "HOME"].map((name) => `${name}=${quote(this.sandbox.env[name] as string)}`).join(" ");
    return { path: this.script(`exec env ${env} ${quote(this.claude)} -e ${quote(script)}`), ready };
  }

  /** A new detached session whose window 0 shows `text`; returns its STY (`<pid>.<name>`). */
  newSession(name: string, text = `PLAIN-${name}-0`): string {
    this.screen("-dmS", name, "-t", "plain", "/bin/sh", this.script(`echo ${text}; exec sleep 600`));
    // The detached server creates its socket a moment after -dmS returns: ask until it lists the session.
    const pattern = new RegExp(`^\\s*(\\d+\\.${name})\\s`, "m");
    let sty: string | undefined;
    for (const started = Date.now(); sty === undefined && Date.now() - started < 5000;) {
      sty = pattern.exec(this.tryScreen("-ls", name).stdout + "\n")?.[1];
      if (sty === undefined) execFileSync("sleep", ["0.05"]);
    }
    if (!sty) throw new Error(`screen session ${name} did not start: ${this.tryScreen("-ls").stdout}`);
    this.sessions.add(sty);
    return sty;
  }

  /** Window `window` of `sty` running an agent; resolves once its hook has recorded the session. */
  async agentWindow(sty: string, window: number): Promise<AgentWindow> {
    const sessionId = `screen-session-${window}-${Math.random().toString(16).slice(2, 8)}`;
    const marker = `AGENT-MARKER-${sty.split(".")[1]}-${window}`;
    const { path, ready } = this.agentScript(sessionId, marker);
    this.screen("-S", sty, "-X", "screen", "-t", `agent${window}`, String(window), "/bin/sh", path);
    await waitFor(() => existsSync(ready), `the agent in ${sty} window ${window} to run its hook`);
    const status = readFileSync(ready, "utf8");
    if (status !== "0") throw new Error(`hook in ${sty} window ${window} exited ${status}`);
    return { sty, window, sessionId, marker };
  }

  plainWindow(sty: string, window: number, text: string): void {
    this.screen("-S", sty, "-X", "screen", "-t", `plain${window}`, String(window), "/bin/sh", this.script(`echo ${text}; exec sleep 600`));
  }

  /** Attach a real screen client inside an outer tmux pane. */
  async attach(sty: string, name = `view-${sty.split(".")[1]}`): Promise<ScreenClientView> {
    this.tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", `exec screen -r ${quote(sty)}`);
    await waitFor(() => /\(Attached\)/.test(this.tryScreen("-ls", sty).stdout), `a client to attach to ${sty}`);
    return { outerSession: name, pid: Number(this.tmux("display-message", "-p", "-t", name, "#{pane_pid}")) };
  }

  /** What the attached client draws, read from its outer pane. */
  seen(client: ScreenClientView): string {
    return this.tmux("capture-pane", "-p", "-t", client.outerSession);
  }

  /** Stop by session name (`-X quit`), then by server PID if it is still there, then the outer tmux server. */
  stop(): void {
    for (const sty of this.sessions) {
      this.tryScreen("-S", sty, "-X", "quit");
      const pid = Number(sty.split(".")[0]);
      // Only if that PID is still a screen process (it may have exited and been reused).
      const comm = existsSync(`/proc/${pid}/comm`) ? readFileSync(`/proc/${pid}/comm`, "utf8").trim() : "";
      if (!comm.toLowerCase().startsWith("screen")) continue;
      try {
        process.kill(pid, "SIGTERM");
      } catch (error) {
        // The quit above may end it between the look and the signal.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    spawnSync("tmux", ["-S", this.outer, "kill-server"], { env: this.env });
  }
}
