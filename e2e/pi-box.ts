// Pi inside a container: the synthetic provider served on 127.0.0.1 there, Pi's config pointed at it (models.json and
// settings.json in ~/.pi/agent, as shared/facts/harnesses.md says), and a watcher that logs every state the session
// records go through (e2e/fixtures/record-watch.mjs), read back as a history.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { E2E_DIR, hookLogLines, jsonLines, type Box } from "./containers.ts";
import { REPO_ROOT } from "./env.ts";
import { waitUntil, WATCH_SCRIPT } from "./tmux-focus-lab.ts";

/** The Pi release the live suites pin (test/live/harnesses.json); the image's agents layer must carry the same. */
export const PINNED_PI = (
  JSON.parse(readFileSync(join(REPO_ROOT, "test", "live", "harnesses.json"), "utf8")) as { pi: { package: string; version: string } }
).pi;

export const PI_AGENT_DIR = "/root/.pi/agent";
/** The default state dir of root in the container: nothing points TONGS_AGENTS_STATE_DIR elsewhere. */
export const STATE_DIR = "/root/.local/state/tongs-agents";
export const PROVIDER_PORT = 8787;
const PROVIDER_DIR = `${E2E_DIR}/provider`;
const HISTORY = "/tmp/record-history.jsonl";

/** The environment Pi gets in its pane: no downloads (fd, ripgrep), no version check, no telemetry. */
export const PI_ENV = { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", FAKE_PI_API_KEY: "synthetic" } as const;

export interface HistoryEntry {
  readonly at: string;
  readonly session_id: string;
  readonly harness: string;
  readonly pid: number;
  readonly status: string;
  readonly detail: string;
  readonly tool: string;
  readonly last_event: string;
  readonly sequence: number | null;
}

/** Start the provider in the background (its parent exits; catatonit adopts it) and wait until it listens. */
export async function startProvider(box: Box, { slowMs, toolCommand }: { slowMs: number; toolCommand: string }): Promise<string> {
  await box.container.copyDirectoriesToContainer([{ source: join(REPO_ROOT, "e2e", "provider"), target: PROVIDER_DIR }]);
  await box.sh(
    `node "$1/server.mjs" --port "$2" --slow-ms "$3" --tool-command "$4" > /tmp/provider.json 2> /tmp/provider.err < /dev/null &`,
    PROVIDER_DIR,
    String(PROVIDER_PORT),
    String(slowMs),
    toolCommand,
  );
  let url = "";
  await waitUntil(
    async () => {
      url = (JSON.parse((await box.exec(["cat", "/tmp/provider.json"])).stdout || "{}") as { url?: string }).url ?? "";
      return url !== "";
    },
    "the synthetic provider to listen",
    { explain: () => box.sh("cat /tmp/provider.err") },
  );
  return url;
}

/** Point Pi at the provider: one provider `fake` (openai-completions) with one model, the default. */
export async function configurePi(box: Box, url: string): Promise<void> {
  const models = {
    providers: {
      fake: {
        baseUrl: `${url}/v1`,
        api: "openai-completions",
        apiKey: "FAKE_PI_API_KEY",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "fake-model" }],
      },
    },
  };
  await box.container.copyContentToContainer([
    { content: `${JSON.stringify(models, null, 2)}\n`, target: `${PI_AGENT_DIR}/models.json` },
    {
      content: `${JSON.stringify({ defaultProvider: "fake", defaultModel: "fake-model" }, null, 2)}\n`,
      target: `${PI_AGENT_DIR}/settings.json`,
    },
  ]);
}

export async function startWatcher(box: Box): Promise<void> {
  await box.sh(`node "$1" "$2" "$3" > /tmp/record-watch.err 2>&1 < /dev/null &`, WATCH_SCRIPT, STATE_DIR, HISTORY);
}

/**
 * Every state the watcher saw, oldest first; and where the agent runs with TONGS_AGENTS_DEBUG=1, every state the
 * drainer left after each event it applied: it writes one batch's versions back to back, so a watcher of the files can
 * miss a state that lasted only within a batch (a session start and the first prompt fired together). Each record's
 * versions are in the order it went through them (its arrival count); the records interleave by time.
 */
export async function readHistory(box: Box): Promise<HistoryEntry[]> {
  const seen = jsonLines((await box.exec(["cat", HISTORY])).stdout) as unknown as (HistoryEntry & {
    canonical_id?: string;
    arrival_sequence?: number;
  })[];
  const known = new Set(seen.map((entry) => `${entry.canonical_id} ${entry.arrival_sequence}`));
  const applied: typeof seen = [];
  for (const entry of await hookLogLines(box)) {
    const state = entry.state as
      { status: string; detail: string; tool: string; arrival: number; session: string; pid: number } | undefined;
    const canonical = entry.canonicalId as string | undefined;
    if (entry.drainer !== true || entry.action !== "written" || !state || !canonical || known.has(`${canonical} ${state.arrival}`))
      continue;
    known.add(`${canonical} ${state.arrival}`);
    applied.push({
      at: entry.time as string,
      session_id: state.session,
      harness: canonical.split(":")[2] ?? "",
      pid: state.pid,
      status: state.status,
      detail: state.detail,
      tool: state.tool,
      last_event: entry.event as string,
      sequence: null,
      canonical_id: canonical,
      arrival_sequence: state.arrival,
    });
  }
  const all = [...seen, ...applied].sort((a, b) => a.at.localeCompare(b.at));
  // Within a record, its own order: the places its versions hold in time, filled in arrival order.
  const byRecord = new Map<string, typeof all>();
  for (const entry of all) {
    const key = entry.canonical_id ?? "";
    const versions = byRecord.get(key);
    if (versions) versions.push(entry);
    else byRecord.set(key, [entry]);
  }
  for (const versions of byRecord.values()) versions.sort((a, b) => (a.arrival_sequence ?? 0) - (b.arrival_sequence ?? 0));
  const next = new Map<string, number>();
  return all.map((entry) => {
    const key = entry.canonical_id ?? "";
    const at = next.get(key) ?? 0;
    next.set(key, at + 1);
    return (byRecord.get(key) as typeof all)[at] as HistoryEntry;
  });
}
