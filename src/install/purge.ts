// `uninstall --purge`: the state directory goes too, and first it says what is in it (session records, the hook shim's
// queue, logs, the drainer's and the keypress server's files). Only a directory that holds nothing but what tongs-agents
// writes there is removed: TONGS_AGENTS_STATE_DIR may name any directory, and a purge must never take a file of the
// user's with it. The resident processes (the drainer, the keypress server) are stopped by the CLI before the removal.
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ANSWERS_DIR } from "../store/answer-log.ts";
import { DRAINER_PID_FILE, SHIM_QUEUE_DIR } from "../store/drainer-process.ts";
import { DEBUG_LOG_FILE } from "../store/paths.ts";
import { RECORD_CACHE_FILE, SESSIONS_INDEX_FILE } from "../store/record-cache.ts";
import { STATUS_SERVERS_DIR } from "../store/status-servers.ts";
import { STATUSLINE_DIR } from "../store/statusline-facts.ts";
import { CREATED_FILES } from "./created-files.ts";

/** What tongs-agents writes in its state dir, in words (temp files of atomic writes end in `.tmp`). */
const OURS: ReadonlyMap<string, string> = new Map([
  ["sessions", "session records"],
  [SHIM_QUEUE_DIR, "the hook shim's queue"],
  [DRAINER_PID_FILE, "the drainer's pid file"],
  ["server", "the keypress server's socket and log"], // src/server/protocol.ts
  ["notify", "notification marks and the mute setting"], // src/store/notify-ledger.ts, src/notify/mute.ts
  ["transcripts", "transcript read positions"], // src/store/transcript-cursor.ts
  [STATUS_SERVERS_DIR, "the tmux servers showing the status segment"],
  [STATUSLINE_DIR, "what harnesses' status lines stated (model, context, limits)"],
  [ANSWERS_DIR, "the answers given to waiting sessions"],
  ["answer-requests", "answers on their way to a harness's plugin or held hook"], // src/answer/request-channel.ts
  ["answer-holds", "the held Claude Code hooks an answer can go through"], // src/answer/holds.ts
  ["ssh", "SSH connection sockets"], // src/hosts/ssh.ts
  ["seen.json", "seen marks"], // src/fleet/seen.ts
  ["next.json", "the last session `next` went to"], // src/cli/next.ts
  [RECORD_CACHE_FILE, "the validated-record cache"],
  [SESSIONS_INDEX_FILE, "the index of live sessions"],
  [CREATED_FILES, "the record of files install created"],
  ...[DEBUG_LOG_FILE, "drainer.log", "notify.log"].flatMap((log) => [[log, "a log"] as const, [`${log}.1`, "a rotated log"] as const]),
]);

export interface PurgeResult {
  readonly state_dir: string;
  readonly removed: boolean;
  readonly detail: string;
  /** What the directory holds (would hold, for a dry run), one entry per name: `sessions/ (3 entries): session records`. */
  readonly contents: readonly string[];
}

/** Whether the state dir may be purged, and what is in it; nothing is changed. */
export function purgePlan(stateDir: string): { ok: true; contents: string[] } | { ok: false; detail: string } {
  let stats;
  try {
    stats = lstatSync(stateDir);
  } catch {
    return { ok: false, detail: "there is no state directory" };
  }
  if (stats.isSymbolicLink() || !stats.isDirectory())
    return { ok: false, detail: "it is not a directory (or is a symlink); left as it is" };
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) return { ok: false, detail: `it is owned by uid ${stats.uid}; left as it is` };
  const names = readdirSync(stateDir).sort();
  const foreign = names.filter((name) => !OURS.has(name) && !name.endsWith(".tmp"));
  if (foreign.length > 0)
    return {
      ok: false,
      detail: `it holds files tongs-agents does not write (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", ..." : ""}); left as it is`,
    };
  const contents = names.map((name) => {
    const entry = lstatSync(join(stateDir, name), { throwIfNoEntry: false });
    const count = entry?.isDirectory() ? ` (${readdirSync(join(stateDir, name)).length} entries)` : "";
    return `${name}${entry?.isDirectory() ? "/" : ""}${count}: ${OURS.get(name) ?? "a temporary file"}`;
  });
  return { ok: true, contents };
}

export function purgeStateDir(stateDir: string, { dryRun }: { dryRun: boolean }): PurgeResult {
  const plan = purgePlan(stateDir);
  const result = (removed: boolean, detail: string): PurgeResult => ({
    state_dir: stateDir,
    removed,
    detail,
    contents: plan.ok ? plan.contents : [],
  });
  if (!plan.ok) return result(false, plan.detail);
  if (dryRun) return result(false, "would be removed");
  try {
    rmSync(stateDir, { recursive: true });
    return result(true, "removed");
  } catch (error) {
    return result(false, `${(error as NodeJS.ErrnoException).code ?? String(error)}; not all of it could be removed`);
  }
}
