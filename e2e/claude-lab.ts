// The real Claude Code inside an e2e container: the synthetic provider on 127.0.0.1 (e2e/provider, in its own tmux
// server), Claude's config pre-seeded the way a user who finished onboarding has it, tongs-agents' hooks installed by
// the installed CLI, and Claude itself typed into interactive bash panes of an inner tmux server with send-keys. An
// outer tmux server runs an attached inner client, so a test reads exactly what that client shows (test/live/tmux-lab.ts
// does the same on the host).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { shellQuote } from "../src/core/shell-quote.ts";
import { E2E_DIR, hookLogLines, type Box } from "./containers.ts";
import { pollUntil } from "./poll.ts";

export const PROJECT = "/work/project";
/** What the synthetic model's tool call runs: it creates a file, so Claude Code asks first (it runs `echo` unasked). */
export const APPROVED_FILE = "approved-by-user.txt";
export const INNER = "/tmp/claude-inner.tmux";
const OUTER = "/tmp/claude-outer.tmux";
const PROVIDER_TMUX = "/tmp/claude-provider.tmux";
const PROVIDER_PORT = 8787;
const PROVIDER_DIR = `${E2E_DIR}/provider`;
const SESSION = "work";

/**
 * The environment Claude Code runs with (shared/facts/harnesses.md, "Pointing each CLI at a local synthetic provider"),
 * and TONGS_AGENTS_DEBUG=1, which its hooks inherit: they log each event they applied (src/hook/debug-log.ts).
 */
export const CLAUDE_ENV: Readonly<Record<string, string>> = {
  TONGS_AGENTS_DEBUG: "1",
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${PROVIDER_PORT}`,
  // Sent as a bearer token; an API key would bring up the "use this API key?" dialog, which defaults to No.
  ANTHROPIC_AUTH_TOKEN: "synthetic-token",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
};

/**
 * ~/.claude.json as after onboarding: without it the first interactive start checks connectivity to the public API and
 * exits. `hasSeenAutoDefaultNudge` skips the "Make auto mode your default permission mode?" dialog 2.1.332 shows at
 * start; the project is trusted so no folder-trust dialog comes up.
 */
export const CLAUDE_JSON = {
  hasCompletedOnboarding: true,
  hasSeenAutoDefaultNudge: true,
  projects: { [PROJECT]: { hasTrustDialogAccepted: true } },
};
/** The interactive default mode is "auto", which approves tool calls itself; "default" shows real permission dialogs. */
export const CLAUDE_SETTINGS = { permissions: { defaultMode: "default" } };

export interface SessionRecord {
  readonly id: string;
  readonly short_id: string;
  readonly harness: string;
  readonly session_id: string;
  readonly instance_id: string;
  readonly identity: string;
  readonly status: string;
  readonly recorded_status: string;
  readonly stale: boolean;
  readonly pid: number | null;
  readonly cwd: string;
  readonly detail: string;
  readonly tool: string;
  readonly last_event: string;
  readonly updated_at: string;
  readonly terminal: { env: Record<string, string>; tty?: string };
}

export interface ProviderRequest {
  readonly method: string;
  readonly path: string;
  readonly api: string;
  readonly decision: string;
  readonly held: boolean;
}

export interface Pane {
  readonly id: string;
  /** The pane's own process: the interactive bash Claude is typed into. */
  readonly pid: number;
  readonly window: string;
  readonly tty: string;
}

export interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
}

export class ClaudeLab {
  readonly box: Box;
  private windows = 0;

  constructor(box: Box) {
    this.box = box;
  }

  /** Copy the provider in and start it (`--tool-command` makes the tool call one that needs approval). */
  async startProvider(): Promise<void> {
    const dir = join(import.meta.dirname, "provider");
    const files = readdirSync(dir).filter((name) => name.endsWith(".mjs"));
    await this.box.container.copyFilesToContainer(files.map((name) => ({ source: join(dir, name), target: `${PROVIDER_DIR}/${name}` })));
    const command = `exec node ${PROVIDER_DIR}/server.mjs --port ${PROVIDER_PORT} --tool-command ${shellQuote(`touch ${APPROVED_FILE}`)} > /tmp/provider.log 2>&1`;
    await this.box.sh(`tmux -S "$1" new-session -d -s provider "$2"`, PROVIDER_TMUX, command);
    await waitUntil(
      async () => (await this.fetchJson("GET", "/health").catch(() => undefined)) !== undefined,
      "the synthetic provider to answer /health",
      30_000,
      () => this.box.sh("cat /tmp/provider.log"),
    );
  }

  /** Claude's config as a user who finished onboarding has it, and the project directory. */
  async seedConfig(): Promise<void> {
    await this.box.sh(
      `mkdir -p "$1" "$HOME/.claude" && printf '%s\\n' "$2" > "$HOME/.claude.json" && printf '%s\\n' "$3" > "$HOME/.claude/settings.json"`,
      PROJECT,
      JSON.stringify(CLAUDE_JSON),
      JSON.stringify(CLAUDE_SETTINGS),
    );
  }

  /** GET /control/requests, POST /control/release and the like, from inside the container. */
  async fetchJson(method: "GET" | "POST", path: string): Promise<unknown> {
    const script = `fetch(process.argv[1] + process.argv[2], { method: process.argv[3] }).then(async (r) => { if (!r.ok) process.exit(3); process.stdout.write(await r.text()); }, () => process.exit(2))`;
    const run = await this.box.exec(["node", "-e", script, CLAUDE_ENV.ANTHROPIC_BASE_URL as string, path, method]);
    if (run.code !== 0) throw new Error(`${method} ${path} on the provider: exit ${run.code} ${run.stderr}`);
    return JSON.parse(run.stdout) as unknown;
  }

  async providerRequests(): Promise<ProviderRequest[]> {
    return ((await this.fetchJson("GET", "/control/requests")) as { requests: ProviderRequest[] }).requests;
  }

  async release(): Promise<number> {
    return ((await this.fetchJson("POST", "/control/release")) as { released: number }).released;
  }

  tmux(socket: string, ...args: string[]): Promise<string> {
    return this.box.sh(`socket="$1"; shift; exec tmux -S "$socket" "$@"`, socket, ...args).then((out) => out.replace(/\n$/, ""));
  }

  /** A new window in the inner server running an interactive bash in the project, with Claude's environment. */
  async openPane(name: string): Promise<Pane> {
    const env = Object.entries(CLAUDE_ENV).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    const where =
      this.windows++ === 0 ? ["new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40"] : ["new-window", "-d", "-t", `${SESSION}:`];
    const out = await this.tmux(
      INNER,
      ...where,
      "-n",
      name,
      "-c",
      PROJECT,
      ...env,
      "-P",
      "-F",
      "#{pane_id} #{pane_pid} #{window_id} #{pane_tty}",
      "bash --norc --noprofile",
    );
    const [id = "", pid = "", window = "", tty = ""] = out.split(" ");
    return { id, pid: Number(pid), window, tty };
  }

  capture(pane: string): Promise<string> {
    return this.tmux(INNER, "capture-pane", "-p", "-J", "-t", pane);
  }

  /** Type text into a pane the way a user does, then press Enter once the text is on screen. */
  async type(pane: string, text: string): Promise<void> {
    await this.tmux(INNER, "send-keys", "-t", pane, "-l", text);
    await this.waitForScreen(pane, (screen) => screen.includes(text), `'${text}' typed into ${pane}`);
    await this.keys(pane, "Enter");
  }

  keys(pane: string, ...keys: string[]): Promise<string> {
    return this.tmux(INNER, "send-keys", "-t", pane, ...keys);
  }

  /** Type `claude` into the pane's shell; resolves once its prompt is ready for input. */
  async launchClaude(pane: string): Promise<void> {
    await this.type(pane, "claude");
    await this.waitForScreen(pane, (screen) => screen.includes("? for shortcuts"), `Claude Code's input prompt in ${pane}`, 90_000);
  }

  async waitForScreen(pane: string, ok: (screen: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
    let screen = "";
    await waitUntil(
      async () => ok((screen = await this.capture(pane))),
      what,
      timeoutMs,
      async () => screen,
    );
    return screen;
  }

  /** Every record, ended ones included (`tongs-agents list --all --json`, run as the user would inside the container). */
  async records(): Promise<SessionRecord[]> {
    const run = await this.box.exec(["tongs-agents", "list", "--all", "--json"]);
    if (run.code !== 0) throw new Error(`tongs-agents list --all --json exited ${run.code}: ${run.stderr}`);
    return (JSON.parse(run.stdout) as { sessions: SessionRecord[] }).sessions.filter((session) => session.harness === "claude");
  }

  /** Poll the records until `pick` finds one that matches; the error shows the records and the pane. */
  async waitForRecord(
    what: string,
    pick: (records: SessionRecord[]) => SessionRecord | undefined,
    pane?: string,
    timeoutMs = 60_000,
  ): Promise<SessionRecord> {
    let found: SessionRecord | undefined;
    let last: SessionRecord[] = [];
    await waitUntil(
      async () => {
        last = await this.records();
        found = pick(last);
        return found !== undefined;
      },
      what,
      timeoutMs,
      async () => `records: ${JSON.stringify(last, null, 1)}${pane ? `\npane ${pane}:\n${await this.capture(pane)}` : ""}`,
    );
    return found as SessionRecord;
  }

  /** The hook's debug log (default state dir of the container's user). */
  async hookLog(): Promise<{ canonicalId?: string; action?: string; detail?: string; argv?: string[] }[]> {
    return (await hookLogLines(this.box)) as { canonicalId?: string; action?: string; detail?: string }[];
  }

  async processes(): Promise<Proc[]> {
    const out = await this.box.sh("ps -eo pid=,ppid=,comm=");
    return out
      .trim()
      .split("\n")
      .map((line) => /^\s*(\d+)\s+(\d+)\s(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), comm: (match[3] as string).trim() }));
  }

  /** The process named exactly `claude` among the pane shell's children: what the user started in that pane. */
  async claudeIn(pane: Pane): Promise<Proc | undefined> {
    return (await this.processes()).find((proc) => proc.ppid === pane.pid && proc.comm === "claude");
  }

  /** Field 22 of /proc/PID/stat (after the last ')'), the start time the record's instance id carries. */
  async startTime(pid: number): Promise<string> {
    const stat = await this.box.sh(`cat /proc/"$1"/stat`, String(pid));
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] as string;
  }

  /** A real inner client attached to the work session, inside an outer pane; returns its tty. */
  async attachClient(): Promise<string> {
    await this.tmux(OUTER, "new-session", "-d", "-s", "view", "-x", "120", "-y", "40", `env -u TMUX tmux -S ${INNER} attach -t ${SESSION}`);
    let tty = "";
    await waitUntil(
      async () => (tty = (await this.clients())[0]?.tty ?? "") !== "",
      "a client attached to the inner server",
      30_000,
      async () => "no client listed",
    );
    return tty;
  }

  /** Attached clients and the pane each one shows. */
  async clients(): Promise<{ tty: string; pane: string }[]> {
    const run = await this.box.exec(["tmux", "-S", INNER, "list-clients", "-F", "#{client_tty} #{pane_id}"]);
    if (run.code !== 0) return [];
    return run.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => ({ tty: line.split(" ")[0] as string, pane: line.split(" ")[1] as string }));
  }

  /** What the attached client draws, read from the outer pane. */
  seen(): Promise<string> {
    return this.tmux(OUTER, "capture-pane", "-p", "-J", "-t", "view");
  }
}

/** Poll `ok` until it holds; on timeout throw with `explain()`'s text. Waits only: no test asserts on time. */
export async function waitUntil(
  ok: () => Promise<boolean>,
  what: string,
  timeoutMs: number,
  explain: () => Promise<string>,
): Promise<void> {
  await pollUntil(ok, what, { timeoutMs, explain });
}
