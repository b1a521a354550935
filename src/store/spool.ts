// Each record has a spool: a hook first queues its validated event there, then applies every queued event under the
// record lock. A hook that cannot get the lock within its bound leaves its event queued, and the next lock holder
// applies it: under heavy contention events are deferred, never dropped, and one lock holder applies a burst at once.
// The directory is removed once empty, so it exists (almost) only while something is queued.
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { checkPrivateDir, ensurePrivateDir } from "./paths.ts";
import { LifecycleEventSchema, SPOOL_ENTRY_PATTERN, type LifecycleEvent, type SessionRecord } from "../core/schema.ts";
import { readJsonFile, uniqueSuffix, writeJsonAtomic } from "./records.ts";
import { applyEvent } from "./apply.ts";

export function spoolDirOf(sessionsDir: string, digest: string): string {
  return join(sessionsDir, `${digest}.spool`);
}

const ENTRY = SPOOL_ENTRY_PATTERN;

/** Queue an event. Entry names sort in arrival order (system-wide monotonic clock, then PID). */
export function enqueue(
  sessionsDir: string,
  digest: string,
  event: LifecycleEvent,
): { ok: true; path: string } | { ok: false; detail: string } {
  const dir = spoolDirOf(sessionsDir, digest);
  let checked = ensurePrivateDir(dir);
  // A lock holder that emptied the queue removes its directory: it may go between ensurePrivateDir's mkdir (which
  // found it there) and its check, which then cannot stat it. Seen once in 12 runs of 64 hooks on one record.
  for (let retry = 0; retry < 3 && !checked.ok && checked.reason === "io"; retry++) checked = ensurePrivateDir(dir);
  if (!checked.ok) return { ok: false, detail: checked.detail };
  const path = join(dir, `${process.hrtime.bigint().toString().padStart(20, "0")}-${process.pid}-${uniqueSuffix()}.json`);
  let written = writeJsonAtomic(path, { schema_version: 1, event });
  // A lock holder that emptied the queue (or prune) removes its directory; it may go between the check and the write.
  for (let retry = 0; retry < 3 && !written.ok && written.reason === "io" && ensurePrivateDir(dir).ok; retry++)
    written = writeJsonAtomic(path, { schema_version: 1, event });
  return written.ok ? { ok: true, path } : { ok: false, detail: written.detail };
}

export function isQueued(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

export interface QueuedEvent {
  readonly path: string;
  /** Undefined when the entry is unreadable or malformed: it is removed without being applied. */
  readonly event: LifecycleEvent | undefined;
}

/**
 * Queued events in arrival order. A spool that is not a private directory of ours (a symlink planted in its place, say)
 * is never read, so nothing in its target is applied or removed.
 */
export function queuedEvents(sessionsDir: string, digest: string): QueuedEvent[] {
  const dir = spoolDirOf(sessionsDir, digest);
  if (!checkPrivateDir(dir).ok) return [];
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => ENTRY.test(name))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    const path = join(dir, name);
    const file = readJsonFile(path);
    if (file.kind !== "json" || typeof file.value !== "object" || file.value === null) return { path, event: undefined };
    const parsed = LifecycleEventSchema.safeParse((file.value as { event?: unknown }).event);
    return { path, event: parsed.success ? parsed.data : undefined };
  });
}

/** Remove applied entries; the spool dir is checked again first, in case it was replaced by a symlink since it was read. */
export function removeQueued(entries: readonly QueuedEvent[]): void {
  for (const { path } of entries) {
    if (!checkPrivateDir(dirname(path)).ok) continue;
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}

/**
 * Remove a queue (prune, under the record's lock): the entries that were read, temp files an interrupted enqueue left
 * (older than `maxAgeMs`), then the directory when nothing else is in it. An entry queued meanwhile stays, and so does
 * the directory with it.
 */
export function removeSpool(
  sessionsDir: string,
  digest: string,
  read: readonly QueuedEvent[],
  { dryRun, now, maxAgeMs }: { dryRun: boolean; now: number; maxAgeMs: number },
): boolean {
  const dir = spoolDirOf(sessionsDir, digest);
  // A symlink, a file or a foreign directory in place of the queue is not ours to clear.
  if (!checkPrivateDir(dir).ok) return false;
  if (dryRun) return true;
  removeQueued(read);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const entry = lstatSync(path, { throwIfNoEntry: false });
    if (name.endsWith(".tmp") && entry?.isFile() && now - entry.mtimeMs > maxAgeMs) unlinkSync(path);
  }
  removeEmptySpool(sessionsDir, digest);
  return true;
}

/** Remove a queue directory that holds nothing (fails harmlessly when an entry or an enqueue's temp file is there). */
export function removeEmptySpool(sessionsDir: string, digest: string): void {
  try {
    rmdirSync(spoolDirOf(sessionsDir, digest));
  } catch {
    // not empty, or already gone
  }
}

/**
 * The record as it is with `entries` applied in memory, as a lock holder would apply them (readers and prune), and how
 * many applied. Entries the record's last write already applied (`queue_applied`) are skipped.
 */
export function withQueuedEntries(
  record: SessionRecord | undefined,
  entries: readonly QueuedEvent[],
  nowIso: string,
): { record: SessionRecord | undefined; applied: number } {
  const done = new Set(record?.queue_applied ?? []);
  let current = record;
  let applied = 0;
  for (const { path, event } of entries) {
    if (!event || done.has(basename(path))) continue;
    const result = applyEvent(current, event, nowIso);
    if (result.action === "write") {
      current = result.record;
      applied++;
    }
  }
  return { record: current, applied };
}
