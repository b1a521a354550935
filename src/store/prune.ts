// Remove what no longer describes a running agent: ended and stale records, tombstones and pointers whose session is
// gone, and temp files left by a writer that crashed. Each record is re-checked under its lock before removal.
import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { digestOf, shortId } from "../core/identity.ts";
import { checkLiveness } from "../core/liveness.ts";
import { ensureStateDirs } from "./paths.ts";
import type { Clock } from "../core/clock.ts";
import type { ProcessSource } from "../core/proc.ts";
import { RECORD_FILE, readInstancePointer, readRecord, recordPath } from "./records.ts";
import { withRecordLock } from "./record-lock.ts";

export interface PrunedEntry {
  readonly kind: "record" | "tombstone" | "pointer" | "temp" | "cursor";
  readonly id: string;
  readonly short_id: string;
  readonly reason: string;
}

export type PruneResult = { ok: true; dry_run: boolean; removed: PrunedEntry[] } | { ok: false; reason: "state-dir"; detail: string };

/** Temp files older than this belong to a writer that died between write and rename. */
const TEMP_MAX_AGE_MS = 60_000;
const LOCK_WAIT_MS = 1000;

export async function prune({ stateDir, processes, dryRun = false, now: clock = Date.now }: { stateDir: string; processes: ProcessSource; dryRun?: boolean; now?: Clock }): Promise<PruneResult> {
  const now = clock();
  const dirs = ensureStateDirs(stateDir);
  if (!dirs.ok) return { ok: false, reason: "state-dir", detail: dirs.detail };
  const { sessionsDir } = dirs;
  const names = readdirSync(sessionsDir);
  const removed: PrunedEntry[] = [];
  const remove = async (path: string, entry: PrunedEntry) => {
    if (!dryRun) unlinkSync(path);
    removed.push(entry);
  };

  // Records first: tombstones and pointers below are judged by which records remain.
  const remaining = new Set<string>();
  for (const name of names) {
    const digest = RECORD_FILE.exec(name)?.[1];
    if (digest === undefined) continue;
    const path = recordPath(sessionsDir, digest);
    const verdict = async () => {
      const read = readRecord(path, now);
      if (read.kind !== "record") return undefined;
      const { record } = read;
      if (record.status === "ended") return { id: record.canonical_id, reason: "ended" };
      const liveness = await checkLiveness(record, processes, now);
      return liveness.state === "stale" ? { id: record.canonical_id, reason: `stale: ${liveness.reason}` } : undefined;
    };
    const locked = await withRecordLock(sessionsDir, digest, Date.now() + LOCK_WAIT_MS, async () => {
      const found = await verdict();
      if (found) await remove(path, { kind: "record", id: found.id, short_id: shortId(found.id), reason: found.reason });
      return found !== undefined;
    });
    if (!locked.ok || !locked.value) remaining.add(digest);
  }

  // Temp files of the state dir's own files (the validated-record cache, seen and next marks) are left the same way.
  const abandonedTemp = (path: string) => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats !== undefined && stats.isFile() && now - stats.mtimeMs > TEMP_MAX_AGE_MS;
  };
  for (const name of readdirSync(stateDir)) {
    const path = join(stateDir, name);
    if (name.endsWith(".tmp") && abandonedTemp(path)) await remove(path, { kind: "temp", id: name, short_id: "", reason: "left by an interrupted write" });
  }

  for (const name of names) {
    const path = join(sessionsDir, name);
    const digest = RECORD_FILE.exec(name)?.[1];
    if (digest !== undefined && remaining.has(digest)) {
      const read = readRecord(path, now);
      const target = read.kind === "tombstone" ? digestOf(read.tombstone.migrated_to) : undefined;
      if (read.kind === "tombstone" && (target === undefined || !remaining.has(target))) {
        await remove(path, { kind: "tombstone", id: read.tombstone.canonical_id, short_id: shortId(read.tombstone.canonical_id), reason: "its session was pruned" });
      }
    } else if (name.startsWith("instance-") && name.endsWith(".json")) {
      const target = readInstancePointer(path);
      const targetDigest = target === undefined ? undefined : digestOf(target);
      if (targetDigest === undefined || !remaining.has(targetDigest)) {
        await remove(path, { kind: "pointer", id: name, short_id: "", reason: "points to a removed session" });
      }
    } else if (name.endsWith(".tmp") && abandonedTemp(path)) {
      await remove(path, { kind: "temp", id: name, short_id: "", reason: "left by an interrupted write" });
    }
  }
  // Transcript cursors (transcript-cursor.ts) whose record is gone.
  const cursors = join(stateDir, "transcripts");
  for (const name of lstatSync(cursors, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(cursors) : []) {
    const digest = RECORD_FILE.exec(name)?.[1];
    if (digest !== undefined && !remaining.has(digest)) await remove(join(cursors, name), { kind: "cursor", id: name, short_id: "", reason: "its session was pruned" });
  }
  return { ok: true, dry_run: dryRun, removed };
}
