// Real tmux for live tests: an "inner" server where agents run in panes, and an "outer" server whose panes run
// attached inner clients. The outer pane shows exactly what that client renders, so a test can read what the user
// would see (terminals.md: "Proof of what a client really shows").
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { hookCommand } from "../../src/install/command.ts";
import { shellCommand } from "../../src/core/shell-quote.ts";
import { HOOK_BIN } from "../processes.ts";
import type { Sandbox } from "../sandbox.ts";

export interface AgentPane {
  readonly pane: string;
  readonly sessionId: string;
  readonly marker: string;
}

export interface AgentOptions {
  readonly cwd?: string;
  /** Hook aliases the agent reports, in order, when it starts. */
  readonly events?: readonly string[];
}

export interface AttachedClient {
  readonly tty: string;
  readonly outerSession: string;
}

export class TmuxLab {
  readonly inner: string;
  readonly outer: string;
  private readonly claude: string;
  private agents = 0;

  constructor(
    private readonly sandbox: Sandbox,
    name = "lab",
  ) {
    const dir = join(sandbox.root, `tmux-${name}`);
    mkdirSync(dir, { recursive: true });
    this.inner = join(dir, "inner sock"); // a space in the socket path, on purpose
    this.outer = join(dir, "outer");
    const bin = join(dir, "bin");
    mkdirSync(bin);
    this.claude = join(bin, "claude");
    symlinkSync(process.execPath, this.claude);
  }

  tmux(socket: string, ...args: string[]): string {
    return execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8", env: this.sandbox.env }).trimEnd();
  }

  tryTmux(socket: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync("tmux", ["-S", socket, ...args], { encoding: "utf8", env: this.sandbox.env });
    return { status: result.status, stdout: result.stdout.trimEnd(), stderr: result.stderr.trimEnd() };
  }

  /**
   * A shell command for a pane: a process named exactly `claude` reports session-start through the real hook (so the
   * record carries this pane's TMUX and TMUX_PANE), prints a marker, then stays alive like an agent waiting for input.
   */
  /** The argv of an agent process: a process named exactly `claude` that reports `events` through the real hook. */
  agentArgv(
    sessionId: string,
    marker: string,
    events: readonly string[] = ["session-start"],
    { stay = true }: { stay?: boolean } = {},
  ): string[] {
    return [this.claude, "-e", this.agentScript(sessionId, marker, events, stay)];
  }

  private agentScript(sessionId: string, marker: string, events: readonly string[], stay: boolean): string {
    return [
      `let status = 0; for (const alias of ${JSON.stringify(events)}) { const r = require("node:child_process").spawnSync(process.execPath, [${JSON.stringify(HOOK_BIN)}, alias, "--agent", "claude"], { input: JSON.stringify({ session_id: ${JSON.stringify(sessionId)}, cwd: process.cwd(), tool_name: "Bash" }) }); status ||= r.status; }`,
      `process.stdout.write(${JSON.stringify(`${marker}\n`)} + "hook exit " + status + "\\n");`,
      stay ? "setInterval(() => {}, 1e6);" : "",
    ].join(" ");
  }

  private agentCommand(sessionId: string, marker: string, events: readonly string[]): string {
    const script = this.agentScript(sessionId, marker, events, true);
    const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
    const env = ["TONGS_AGENTS_STATE_DIR", "HOME"].map((name) => `${name}=${quote(this.sandbox.env[name] as string)}`).join(" ");
    return `env ${env} ${quote(this.claude)} -e ${quote(script)}`;
  }

  private nextAgent(): { sessionId: string; marker: string } {
    this.agents++;
    return { sessionId: `lab-session-${this.agents}-${Math.random().toString(16).slice(2, 8)}`, marker: `AGENT-MARKER-${this.agents}` };
  }

  /** A new inner session whose first pane runs an agent (which reports `events`, session-start by default). */
  newSession(name: string, options: AgentOptions = {}): AgentPane {
    return this.agentIn(["new-session", "-d", "-s", name, "-x", "100", "-y", "30"], options);
  }

  newWindow(session: string, options: AgentOptions = {}): AgentPane {
    return this.agentIn(["new-window", "-d", "-t", `${session}:`], options);
  }

  split(targetPane: string, options: AgentOptions = {}): AgentPane {
    return this.agentIn(["split-window", "-d", "-t", targetPane], options);
  }

  private agentIn(command: string[], { cwd = this.sandbox.root, events = ["session-start"] }: AgentOptions): AgentPane {
    const agent = this.nextAgent();
    const pane = this.tmux(
      this.inner,
      ...command,
      "-c",
      cwd,
      "-P",
      "-F",
      "#{pane_id}",
      this.agentCommand(agent.sessionId, agent.marker, events),
    );
    return { pane, ...agent };
  }

  /**
   * A new inner session whose pane runs an agent driven from the test: a process named claude that reads one hook
   * alias per line from its terminal (`send`) and reports it through the hook shim, as an installed hook runs it
   * (`/bin/sh -c <the command install writes>`, the payload on stdin), then prints `sent <alias> exit <code>`.
   */
  drivenAgent(session: string, sessionId = `driven-${++this.agents}`): string {
    const command = hookCommand({ node: process.execPath, hook: HOOK_BIN, alias: "ALIAS", agent: "claude", mode: "shim" });
    const script = [
      `const { spawnSync } = require("node:child_process");`,
      `const payload = JSON.stringify({ session_id: ${JSON.stringify(sessionId)}, cwd: process.cwd(), tool_name: "Bash" });`,
      `require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {`,
      `  const alias = line.trim();`,
      `  const r = spawnSync("/bin/sh", ["-c", ${JSON.stringify(command)}.replace("ALIAS", alias)], { input: payload });`,
      `  console.log("sent " + alias + " exit " + r.status);`,
      `});`,
    ].join("\n");
    return this.paneIn(session, shellCommand([this.claude, "-e", script]));
  }

  /** A new inner session of `columns` x 30 running `command` (a shell command line); its pane id. */
  paneIn(session: string, command: string, columns = 100): string {
    return this.tmux(this.inner, "new-session", "-d", "-s", session, "-x", String(columns), "-y", "30", "-P", "-F", "#{pane_id}", command);
  }

  /** Type each line into a pane (a driven agent's events). */
  send(pane: string, ...lines: string[]): void {
    for (const line of lines) this.tmux(this.inner, "send-keys", "-t", pane, "-l", line, ";", "send-keys", "-t", pane, "Enter");
  }

  /** A plain pane without an agent (to move focus away, or to be the "other" content). */
  plainWindow(session: string, text: string): string {
    return this.tmux(this.inner, "new-window", "-t", `${session}:`, "-P", "-F", "#{pane_id}", `sh -c 'echo ${text}; exec sleep 600'`);
  }

  /** Wait until every agent pane printed its marker (its hook has run). */
  async ready(...panes: AgentPane[]): Promise<void> {
    for (const agent of panes) {
      await waitFor(() => this.capture(this.inner, agent.pane).includes(agent.marker), `agent in ${agent.pane} to start`);
      const text = this.capture(this.inner, agent.pane);
      if (!text.includes("hook exit 0")) throw new Error(`hook in ${agent.pane} failed: ${text}`);
    }
  }

  /** Attach a real inner client inside an outer pane; returns the client's tty. */
  async attach(session: string, name = `view-${session}`): Promise<AttachedClient> {
    const before = new Set(this.clients().map((client) => client.tty));
    const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
    this.tmux(
      this.outer,
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      "120",
      "-y",
      "40",
      `env -u TMUX tmux -S ${quote(this.inner)} attach -t ${quote(session)}`,
    );
    let tty = "";
    await waitFor(() => {
      tty = this.clients().find((client) => !before.has(client.tty))?.tty ?? "";
      return tty !== "";
    }, `a client attached to ${session}`);
    return { tty, outerSession: name };
  }

  /** Attached clients, each with the session and pane it shows (list-clients formats are per client). */
  clients(): { tty: string; session: string; pane: string }[] {
    const listed = this.tryTmux(this.inner, "list-clients", "-F", "#{client_tty}\t#{client_session}\t#{pane_id}");
    if (listed.status !== 0 || listed.stdout === "") return [];
    return listed.stdout.split("\n").map((line) => {
      const [tty = "", session = "", pane = ""] = line.split("\t");
      return { tty, session, pane };
    });
  }

  capture(socket: string, target: string): string {
    return this.tmux(socket, "capture-pane", "-p", "-t", target);
  }

  /** What the attached client draws, read from the outer pane, and where its cursor is. */
  seen(client: AttachedClient): { text: string; cursor: [number, number] } {
    const [x, y] = this.tmux(this.outer, "display-message", "-p", "-t", client.outerSession, "#{cursor_x} #{cursor_y}")
      .split(" ")
      .map(Number);
    return { text: this.capture(this.outer, client.outerSession), cursor: [x as number, y as number] };
  }

  /** Where a pane's cursor is on the client's screen: pane offset plus the cursor within the pane. */
  expectedCursor(pane: string): [number, number] {
    const [left, top, x, y] = this.tmux(this.inner, "display-message", "-p", "-t", pane, "#{pane_left} #{pane_top} #{cursor_x} #{cursor_y}")
      .split(" ")
      .map(Number);
    return [(left as number) + (x as number), (top as number) + (y as number)];
  }

  stop(): void {
    for (const socket of [this.outer, this.inner]) this.tryTmux(socket, "kill-server");
  }
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
