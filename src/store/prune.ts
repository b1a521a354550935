// Remove what no longer describes a running agent: ended and stale records, tombstones and pointers whose session is
// gone, what was read or stated for them (transcript cursors, status-line facts), quota marks past their reset, and
// temp files left by a writer that crashed. Each record is re-checked under its lock before removal.
import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { digestOf, shortId } from "../core/identity.ts";
import { checkLiveness } from "../core/liveness.ts";
import { ANSWERS_DIR } from "./answer-log.ts";
import { ensureStateDirs } from "./paths.ts";
import type { Clock } from "../core/clock.ts";
import type { ProcessSource } from "../core/proc.ts";
import { RECORD_FILE, readInstancePointer, readRecord, recordPath } from "./records.ts";
import { sweepLockStaging, withRecordLock, type RecordLock } from "./record-lock.ts";
import type { SessionRecord } from "../core/schema.ts";
import { queuedEvents, removeSpool, withQueuedEntries } from "./spool.ts";
import { STATUSLINE_DIR, statuslinePath } from "./statusline-facts.ts";
import { pruneCrossings } from "./quota-crossing.ts";

export interface PrunedEntry {
  readonly kind: "record" | "tombstone" | "pointer" | "temp" | "cursor" | "spool" | "answers" | "facts" | "mark";
  readonly id: string;
  readonly short_id: string;
  readonly reason: string;
}

export type PruneResult = { ok: true; dry_run: boolean; removed: PrunedEntry[] } | { ok: false; reason: "state-dir"; detail: string };

/** Temp files older than this belong to a writer that died between write and rename. */
const TEMP_MAX_AGE_MS = 60_000;
const LOCK_WAIT_MS = 1000;
const SPOOL_DIR = /^[0-9a-f]{64}\.spool$/;

export async function prune({
  stateDir,
  processes,
  dryRun = false,
  now: clock = Date.now,
}: {
  stateDir: string;
  processes: ProcessSource;
  dryRun?: boolean;
  now?: Clock;
}): Promise<PruneResult> {
  const now = clock();
  const dirs = ensureStateDirs(stateDir);
  if (!dirs.ok) return { ok: false, reason: "state-dir", detail: dirs.detail };
  const { sessionsDir } = dirs;
  const names = readdirSync(sessionsDir);
  const removed: PrunedEntry[] = [];
  // Under a lock, removed through it: a pruner whose lock was taken over (it stalled) removes nothing.
  const remove = async (path: string, entry: PrunedEntry, lock?: RecordLock) => {
    if (!dryRun) {
      if (lock) {
        if (!lock.remove(path)) return;
      } else unlinkSync(path);
    }
    removed.push(entry);
  };
  const verdict = async (record: SessionRecord) => {
    if (record.status === "ended") return { id: record.canonical_id, reason: "ended" };
    const liveness = await checkLiveness(record, processes, now);
    return liveness.state === "stale" ? { id: record.canonical_id, reason: `stale: ${liveness.reason}` } : undefined;
  };

  // Records first: tombstones and pointers below are judged by which records remain. A record is judged with the
  // events still queued for it applied (a queued session start revives an ended record; a queued end ends it), and a
  // removed session's spool goes with it. A spool without a record is judged by the record its events would make.
  const remaining = new Set<string>();
  const spools = new Set(names.filter((name) => SPOOL_DIR.test(name)).map((name) => name.slice(0, 64)));
  const digests = [...new Set([...names.map((name) => RECORD_FILE.exec(name)?.[1]).filter((digest) => digest !== undefined), ...spools])];
  for (const digest of digests) {
    const path = recordPath(sessionsDir, digest);
    const locked = await withRecordLock(sessionsDir, digest, LOCK_WAIT_MS, async (lock) => {
      const read = readRecord(path, now);
      // A tombstone's queue never applies (the drain drops it); an unreadable record is left for a person to look at.
      if (read.kind === "invalid") return false;
      const queued = spools.has(digest) ? queuedEvents(sessionsDir, digest) : [];
      const record = read.kind === "record" ? read.record : undefined;
      const effective = read.kind === "tombstone" ? undefined : withQueuedEntries(record, queued, new Date(now).toISOString()).record;
      const found = effective ? await verdict(effective) : undefined;
      if (effective && !found) return false;
      if (found && read.kind === "record")
        await remove(path, { kind: "record", id: found.id, short_id: shortId(found.id), reason: found.reason }, lock);
      if (spools.has(digest) && removeSpool(sessionsDir, digest, queued, { dryRun, now, maxAgeMs: TEMP_MAX_AGE_MS })) {
        const reason = found
          ? `queue of a removed session (${found.reason})`
          : read.kind === "tombstone"
            ? "queue of a migrated placeholder"
            : "queue with nothing to apply";
        removed.push({ kind: "spool", id: `${digest}.spool`, short_id: digest.slice(0, 10), reason });
      }
      return found !== undefined && read.kind === "record";
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
    if (name.endsWith(".tmp") && abandonedTemp(path))
      await remove(path, { kind: "temp", id: name, short_id: "", reason: "left by an interrupted write" });
  }

  for (const name of names) {
    const path = join(sessionsDir, name);
    const digest = RECORD_FILE.exec(name)?.[1];
    if (digest !== undefined && remaining.has(digest)) {
      const read = readRecord(path, now);
      const target = read.kind === "tombstone" ? digestOf(read.tombstone.migrated_to) : undefined;
      if (read.kind === "tombstone" && (target === undefined || !remaining.has(target))) {
        await remove(path, {
          kind: "tombstone",
          id: read.tombstone.canonical_id,
          short_id: shortId(read.tombstone.canonical_id),
          reason: "its session was pruned",
        });
      }
    } else if (name.startsWith("instance-") && name.endsWith(".json")) {
      // Under the pointer's own lock, as session switching writes it (transaction.ts).
      await withRecordLock(sessionsDir, name.slice(0, -".json".length), LOCK_WAIT_MS, async (lock) => {
        const target = readInstancePointer(path);
        const targetDigest = target === undefined ? undefined : digestOf(target);
        if (lstatSync(path, { throwIfNoEntry: false }) && (targetDigest === undefined || !remaining.has(targetDigest))) {
          await remove(path, { kind: "pointer", id: name, short_id: "", reason: "points to a removed session" }, lock);
        }
      });
    } else if (name.endsWith(".tmp") && abandonedTemp(path)) {
      await remove(path, { kind: "temp", id: name, short_id: "", reason: "left by an interrupted write" });
    }
  }
  // Lock directories a process was making, or had taken over, when it was killed (record-lock.ts).
  for (const name of sweepLockStaging(sessionsDir, { olderThanMs: TEMP_MAX_AGE_MS, dryRun, now }))
    removed.push({ kind: "temp", id: name, short_id: "", reason: "left by a lock holder that was killed" });
  // Transcript cursors (transcript-cursor.ts) whose record is gone.
  const cursors = join(stateDir, "transcripts");
  for (const name of lstatSync(cursors, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(cursors) : []) {
    const digest = RECORD_FILE.exec(name)?.[1];
    if (digest !== undefined && !remaining.has(digest))
      await remove(join(cursors, name), { kind: "cursor", id: name, short_id: "", reason: "its session was pruned" });
  }
  // Answers kept for explain (answer-log.ts) whose record is gone.
  const answers = join(stateDir, ANSWERS_DIR);
  for (const name of lstatSync(answers, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(answers) : []) {
    if (/^[0-9a-f]{64}$/.test(name) && !remaining.has(name))
      await remove(join(answers, name), { kind: "answers", id: name, short_id: "", reason: "its session was pruned" });
  }
  // What a status line stated for a session (statusline-facts.ts) whose record is gone; quota marks past their reset.
  const sessionsShown = new Set<string>();
  for (const digest of remaining) {
    const read = readRecord(recordPath(sessionsDir, digest), now);
    if (read.kind === "record") sessionsShown.add(basename(statuslinePath(stateDir, read.record.harness, read.record.session_id)));
  }
  const statusline = join(stateDir, STATUSLINE_DIR);
  for (const name of lstatSync(statusline, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(statusline) : []) {
    const path = join(statusline, name);
    if (!sessionsShown.has(name) && abandonedTemp(path))
      await remove(path, { kind: name.endsWith(".tmp") ? "temp" : "facts", id: name, short_id: "", reason: "its session was pruned" });
  }
  for (const name of pruneCrossings(stateDir, now, dryRun))
    removed.push({ kind: "mark", id: name, short_id: "", reason: "a quota notification whose window has reset" });
  return { ok: true, dry_run: dryRun, removed };
}
