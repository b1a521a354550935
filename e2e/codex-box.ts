// A container set up for the real Codex CLI: the synthetic provider on 127.0.0.1 (e2e/provider, OpenAI Responses),
// Codex's config.toml pointing at it, our hooks installed and trusted by the installed `tongs-agents install --agent
// codex --trust-codex-hooks`, and a watcher that logs every version of every session record. Codex itself runs
// interactively in tmux panes (codex-tmux.ts), driven with send-keys.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { FocusResult } from "../src/focus/result.ts";
import type { SessionView } from "../src/fleet/view.ts";
import { E2E_DIR, hookLogLines, type Box, type Run } from "./containers.ts";
import { REPO_ROOT } from "./env.ts";
import { capture, openPane, SERVICES, submit, tmux, waitUntil, type Pane } from "./codex-tmux.ts";

export const CODEX_HOME = "/root/.codex";
export const PROJECT = "/work/project";
/** Where the hook keeps records for root in the container (no TONGS_AGENTS_STATE_DIR: the default path). */
export const SESSIONS_DIR = "/root/.local/state/tongs-agents/sessions";
/** While this file is missing, the command the provider's RUNTOOL asks for waits (bounded, 120 s), so the tool runs. */
export const GATE = "/work/gate/open";
const TRANSITIONS = "/tmp/record-versions.jsonl";
const PROVIDER_DIR = "/opt/provider";
const PORT = 8787;
/** Codex reads the key's value from this variable; the synthetic provider ignores it. */
const KEY_ENV = "FAKE_OPENAI_API_KEY";

/** How long a SLOW turn stays open: long enough to watch it run and press Esc, short enough to end on its own. */
export const SLOW_MS = 180_000;

const TOOL_COMMAND = `i=0; while [ ! -e ${GATE} ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done; echo hi`;

// As in shared/facts/harnesses.md: wire_api "responses", no retries (a failure shows at once), no update check, no
// analytics; the project folder trusted so no trust prompt opens.
const CONFIG_TOML = `model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:${PORT}/v1"
env_key = "${KEY_ENV}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[projects."${PROJECT}"]
trust_level = "trusted"
`;

export interface Prepared {
  /** `codex --version` inside the container. */
  readonly codexVersion: string;
  /** What `tongs-agents install --agent codex --trust-codex-hooks` did, run inside the container. */
  readonly install: Run;
}

/**
 * Provider, config, installed hooks and the record watcher; call once per container, before any codex starts.
 * `extraConfig` is appended to config.toml before the installer runs (e.g. a `[features]` table).
 */
export async function prepareCodexBox(box: Box, { extraConfig = "" }: { extraConfig?: string } = {}): Promise<Prepared> {
  // Every module of the provider (server.mjs imports each API's): a list kept here went stale when one was added.
  const provider = readdirSync(join(REPO_ROOT, "e2e", "provider")).filter((name) => name.endsWith(".mjs"));
  await box.container.copyFilesToContainer([
    ...provider.map((name) => ({ source: join(REPO_ROOT, "e2e", "provider", name), target: `${PROVIDER_DIR}/${name}` })),
    { source: join(REPO_ROOT, "e2e", "codex-record-watch.ts"), target: `${E2E_DIR}/codex-record-watch.ts` },
  ]);
  await box.container.copyContentToContainer([{ content: `${CONFIG_TOML}${extraConfig}`, target: `${CODEX_HOME}/config.toml` }]);
  await box.sh(`mkdir -p "$1" "$(dirname "$2")"`, PROJECT, GATE);
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  await tmux(
    box,
    SERVICES,
    "new-session",
    "-d",
    "-s",
    "provider",
    `node ${PROVIDER_DIR}/server.mjs --port ${PORT} --slow-ms ${SLOW_MS} --tool-command ${quote(TOOL_COMMAND)} >/tmp/provider.log 2>&1`,
  );
  await tmux(
    box,
    SERVICES,
    "new-window",
    "-d",
    "-n",
    "watch",
    `node ${E2E_DIR}/codex-record-watch.ts ${SESSIONS_DIR} ${TRANSITIONS} 2>/tmp/watch.log`,
  );
  // minbase has no curl: ask with Node's fetch until the provider answers.
  const health = `fetch("http://127.0.0.1:${PORT}/health").then((r) => r.ok || process.exit(1), () => process.exit(1))`;
  await waitUntil(async () => ((await box.exec(["node", "-e", health])).code === 0 ? true : undefined), "the provider to answer", {
    timeout: 30_000,
  });
  const install = await box.exec(["tongs-agents", "install", "--agent", "codex", "--trust-codex-hooks"]);
  const codexVersion = (await box.sh("codex --version")).trim();
  return { codexVersion, install };
}

/** Start the real codex UI in a new inner tmux session (or a split), in the project folder; wait until it is ready. */
export async function startCodex(box: Box, where: { session: string } | { split: string }, args: readonly string[]): Promise<Pane> {
  const pane = await openPane(
    box,
    where,
    PROJECT,
    ["exec", "env", `${KEY_ENV}=not-a-key`, "TONGS_AGENTS_DEBUG=1", "codex", ...args].join(" "),
  );
  // Ready when the composer is drawn (its placeholder, and the footer naming the model).
  await waitUntil(
    async () => (/OpenAI Codex[\s\S]*fake-model/.test(await capture(box, pane.id)) ? true : undefined),
    `codex to draw its composer in ${pane.id}`,
  );
  return pane;
}

/** Type /quit into a codex UI and wait until its process is gone; the pane's screen is in the error if it stays. */
export async function quitCodex(box: Box, pane: Pane): Promise<void> {
  await submit(box, pane.id, "/quit");
  try {
    // Exited, or a zombie: tmux 3.3a closes the pane when the pty closes and may reap the process only at its next
    // SIGCHLD (seen: a quit UI stayed a zombie for over a minute).
    const running = async () => (await processTable(box)).some((proc) => proc.pid === pane.pid && proc.state !== "Z");
    await waitUntil(async () => ((await running()) ? undefined : true), `codex ${pane.pid} in ${pane.id} to exit after /quit`);
  } catch (error) {
    const screen = await capture(box, pane.id).catch((failure: unknown) => `(no capture: ${String(failure)})`);
    throw new Error(`${(error as Error).message}; the pane shows:\n${screen}`, { cause: error });
  }
}

export async function listSessions(box: Box): Promise<SessionView[]> {
  const run = await box.exec(["tongs-agents", "list", "--json", "--all"]);
  if (run.code !== 0) throw new Error(`tongs-agents list exited ${run.code}: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { sessions: SessionView[] }).sessions;
}

export async function codexRecords(box: Box): Promise<SessionView[]> {
  return (await listSessions(box)).filter((session) => session.harness === "codex" && session.identity !== "discovered");
}

/** Poll until exactly one Codex record matches. */
export async function waitForRecord(
  box: Box,
  match: (session: SessionView) => boolean,
  what: string,
  timeout = 90_000,
): Promise<SessionView> {
  try {
    return await waitUntil(async () => (await codexRecords(box)).find(match), what, { timeout });
  } catch (error) {
    const records = (await codexRecords(box).catch(() => [])).map(
      (view) => `${view.short_id} ${view.status} ${view.detail} (${view.last_event})`,
    );
    throw new Error(
      `${(error as Error).message}; records now: ${records.join("; ") || "none"}; versions seen: ${(await recordVersions(box)).map(describeVersion).join(" | ")}`,
      { cause: error },
    );
  }
}

export interface RecordVersion {
  readonly canonical_id: string;
  readonly session_id: string;
  readonly status: string;
  readonly detail: string;
  readonly tool: string;
  readonly last_event: string;
  readonly arrival_sequence: number;
  readonly pid: number | null;
}

/**
 * Every version of every record, oldest first: each event the drainer applied, with the state it left (its debug
 * log: the drainer writes a record once per batch, so a watcher of the files can miss a version that lasted only
 * within a batch), and each version the watcher saw (what readers wrote: a turn failure stated in the rollout).
 */
export async function recordVersions(box: Box): Promise<RecordVersion[]> {
  const byRecord = new Map<string, Map<number, RecordVersion>>();
  const add = (version: RecordVersion) => {
    const versions = byRecord.get(version.canonical_id) ?? new Map<number, RecordVersion>();
    versions.set(version.arrival_sequence, version);
    byRecord.set(version.canonical_id, versions);
  };
  const seen = await box.exec(["cat", TRANSITIONS]);
  if (seen.code === 0) for (const line of seen.stdout.split("\n").filter(Boolean)) add(JSON.parse(line) as RecordVersion);
  for (const line of await hookLogLines(box)) {
    const entry = line as {
      drainer?: boolean;
      action?: string;
      event?: string;
      canonicalId?: string;
      state?: { status: string; detail: string; tool: string; arrival: number };
    };
    if (entry.drainer !== true || entry.action !== "written" || !entry.state || !entry.canonicalId || !entry.event) continue;
    const known = byRecord.get(entry.canonicalId)?.get(entry.state.arrival);
    add({
      canonical_id: entry.canonicalId,
      session_id: known?.session_id ?? "",
      status: entry.state.status,
      detail: entry.state.detail,
      tool: entry.state.tool,
      last_event: entry.event,
      arrival_sequence: entry.state.arrival,
      pid: known?.pid ?? null,
    });
  }
  return [...byRecord.values()].flatMap((versions) => [...versions.values()].sort((a, b) => a.arrival_sequence - b.arrival_sequence));
}

/** The versions of one record from `after` (exclusive) on, as `last_event status detail` lines. */
export async function transitionsOf(box: Box, canonicalId: string, after = 0): Promise<string[]> {
  return (await recordVersions(box))
    .filter((version) => version.canonical_id === canonicalId && version.arrival_sequence > after)
    .map(describeVersion);
}

export const describeVersion = (version: Pick<RecordVersion, "last_event" | "status" | "detail">) =>
  `${version.last_event} ${version.status} ${version.detail}`;

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
  readonly argv: readonly string[];
  /** Field 3 of /proc/PID/stat: R, S, D, Z (zombie), ... */
  readonly state: string;
  /** Field 22 of /proc/PID/stat: the start time tongs-agents puts in its start token. */
  readonly starttime: string;
}

/** Every process in the container, read from /proc (comm parsed after the last ')', as tongs-agents does). */
export async function processTable(box: Box): Promise<ProcessInfo[]> {
  const script = `const fs = require("node:fs"); const out = [];
for (const pid of fs.readdirSync("/proc").filter((name) => /^\\d+$/.test(name))) {
  try {
    const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const argv = fs.readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\\0").filter(Boolean);
    out.push({ pid: Number(pid), ppid: Number(rest[1]), comm, argv, state: rest[0], starttime: rest[19] });
  } catch {}
}
process.stdout.write(JSON.stringify(out));`;
  const run = await box.exec(["node", "-e", script]);
  if (run.code !== 0) throw new Error(`process table: ${run.stderr}`);
  return JSON.parse(run.stdout) as ProcessInfo[];
}

/** One variable of a process's environment inside the container (undefined when unset). */
export async function environOf(box: Box, pid: number, name: string): Promise<string | undefined> {
  const environ = await box.exec(["cat", `/proc/${pid}/environ`]);
  const entry = environ.stdout.split("\0").find((line) => line.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}

/** `tongs-agents focus <query> --json`, from outside tmux; `client` names the tmux client to move (--client). */
export async function focus(box: Box, query: string, client?: string): Promise<{ code: number; result: FocusResult }> {
  const run = await box.exec(["tongs-agents", "focus", query, "--json", ...(client ? ["--client", client] : [])]);
  if (run.stdout.trim() === "") throw new Error(`tongs-agents focus ${query} printed nothing (exit ${run.code}): ${run.stderr}`);
  return { code: run.code, result: JSON.parse(run.stdout) as FocusResult };
}
