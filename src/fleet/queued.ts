// What readers show is the record with every event still queued for it applied (docs/contract.md, "Storage", Spool).
// A hook that cannot get a record's lock in time leaves its event in the record's spool for the next lock holder; when
// no further event comes (a deferred final Stop or SessionEnd), the record alone would say the old state for good.
// So list, status, the picker, MCP and explain apply queued events in memory with the same pure `applyEvent` the hook
// uses, without taking a lock (status runs every few seconds) and without writing anything.
import { compareStarts } from "../core/spawn-order.ts";
import type { SessionRecord } from "../core/schema.ts";
import { endedBySuccessor } from "../store/apply.ts";
import { parseRecord, readTextFile, recordPath, type ListedRecord, type RecordListing } from "../store/records.ts";
import { queuedEvents, withQueuedEntries } from "../store/spool.ts";
import { liveProcessKey } from "./process-key.ts";

export interface EffectiveRecord {
  readonly digest: string;
  readonly record: SessionRecord;
  /** History entries at the end of `record.history` that are not on disk yet (queued events, a pending supersede). */
  readonly unwritten: number;
}

/** Reads of record, queue, record: a record that changed between them was written by a drain meanwhile; read again. */
const SNAPSHOT_TRIES = 3;

/** Every record of a listing, plus records that exist so far only as queued events, as readers should show them. */
export function effectiveRecords(sessionsDir: string, listing: RecordListing, now: number): EffectiveRecord[] {
  const nowIso = new Date(now).toISOString();
  const byDigest = new Map<string, EffectiveRecord>(
    listing.records.map(({ digest, record }: ListedRecord) => [digest, { digest, record, unwritten: 0 }]),
  );
  for (const digest of listing.spools) {
    const applied = withQueued(sessionsDir, digest, byDigest.get(digest)?.record, now, nowIso);
    if (applied) byDigest.set(digest, applied);
  }
  return onePerProcess([...byDigest.values()], nowIso);
}

/**
 * The record with its queued events applied, or undefined when nothing is queued (or nothing applies). The record is
 * read before and after the queue until both reads agree, so record and queue come from one moment: entries the
 * record's last write applied (`queue_applied`) may still be queued for an instant, and are skipped.
 */
export function withQueued(
  sessionsDir: string,
  digest: string,
  listed: SessionRecord | undefined,
  now: number,
  nowIso: string,
): EffectiveRecord | undefined {
  let entries = queuedEvents(sessionsDir, digest);
  if (entries.length === 0) return undefined;
  const path = recordPath(sessionsDir, digest);
  let record = listed;
  for (let attempt = 1; attempt <= SNAPSHOT_TRIES; attempt++) {
    const before = readTextFile(path);
    const read = before.kind === "text" ? recordOf(before.text, now) : undefined;
    // As the drain does: nothing applies to a migrated placeholder or to a record of a newer writer.
    if (read === "left-alone") return undefined;
    record = read;
    entries = queuedEvents(sessionsDir, digest);
    const after = readTextFile(path);
    if (before.kind !== "text" ? after.kind !== "text" : after.kind === "text" && after.text === before.text) break;
  }
  const shown = withQueuedEntries(record, entries, nowIso);
  return shown.record && shown.applied > 0 ? { digest, record: shown.record, unwritten: shown.applied } : undefined;
}

function recordOf(text: string, now: number): SessionRecord | "left-alone" | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const read = parseRecord(value, now);
  if (read.kind === "record") return read.record;
  return read.kind === "tombstone" || (read.kind === "invalid" && read.reason === "newer-schema") ? "left-alone" : undefined;
}

/**
 * One harness process runs one session at a time: when several records of one process are live, the one that started
 * last (its `start_order`) is, and the others are shown ended as the store transaction ends them. This covers the
 * moment between a new session's record and the end of its predecessor, and a session start still queued.
 */
function onePerProcess(records: EffectiveRecord[], nowIso: string): EffectiveRecord[] {
  const byProcess = new Map<string, EffectiveRecord[]>();
  for (const entry of records) {
    const key = liveProcessKey(entry.record);
    if (key === undefined) continue;
    const group = byProcess.get(key);
    if (group) group.push(entry);
    else byProcess.set(key, [entry]);
  }
  const replaced = new Map<string, EffectiveRecord>();
  for (const group of byProcess.values()) {
    if (group.length < 2) continue;
    const sorted = [...group].sort((a, b) => compareStarts(a.record.start_order, b.record.start_order));
    const latest = sorted.at(-1) as EffectiveRecord;
    for (const entry of sorted) {
      if (compareStarts(latest.record.start_order, entry.record.start_order) <= 0) continue;
      const ended = endedBySuccessor(entry.record, latest.record.last_event, nowIso);
      replaced.set(entry.digest, { digest: entry.digest, record: ended, unwritten: entry.unwritten + 1 });
    }
  }
  return records.map((entry) => replaced.get(entry.digest) ?? entry);
}
