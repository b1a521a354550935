// `uninstall --purge`: the state directory goes too (session records, seen marks, the record of files install
// created, the debug log). Only a directory that holds nothing but what tongs-agents writes there is removed:
// TONGS_AGENTS_STATE_DIR may name any directory, and a purge must never take a file of the user's with it.
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { DEBUG_LOG_FILE } from "../store/paths.ts";
import { RECORD_CACHE_FILE } from "../store/record-cache.ts";
import { CREATED_FILES } from "./created-files.ts";

/** What tongs-agents writes in its state dir (seen.json: seen.ts; next.json: cli/next.ts), and temp files of writes. */
const OURS = new Set(["sessions", "seen.json", "next.json", RECORD_CACHE_FILE, CREATED_FILES, DEBUG_LOG_FILE, `${DEBUG_LOG_FILE}.1`]);

export interface PurgeResult {
  readonly state_dir: string;
  readonly removed: boolean;
  readonly detail: string;
}

export function purgeStateDir(stateDir: string, { dryRun }: { dryRun: boolean }): PurgeResult {
  const result = (removed: boolean, detail: string): PurgeResult => ({ state_dir: stateDir, removed, detail });
  let stats;
  try {
    stats = lstatSync(stateDir);
  } catch {
    return result(false, "there is no state directory");
  }
  if (stats.isSymbolicLink() || !stats.isDirectory()) return result(false, "it is not a directory (or is a symlink); left as it is");
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) return result(false, `it is owned by uid ${stats.uid}; left as it is`);
  const foreign = readdirSync(stateDir).filter((name) => !OURS.has(name) && !name.endsWith(".tmp"));
  if (foreign.length > 0)
    return result(
      false,
      `it holds files tongs-agents does not write (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", ..." : ""}); left as it is`,
    );
  if (dryRun) return result(false, "would be removed");
  try {
    rmSync(stateDir, { recursive: true });
    return result(true, "removed");
  } catch (error) {
    return result(false, `${(error as NodeJS.ErrnoException).code ?? String(error)}; not all of it could be removed`);
  }
}
