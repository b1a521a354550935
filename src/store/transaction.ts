// The one transaction that applies lifecycle events to the store: take the record's lock (or queue the event in its
// spool when the lock is busy), apply everything queued plus the new events in order, write the record, then retire a
// migrated placeholder and end the session this process ran before. Every writer of records goes through here: the
// drainer with a batch of events from the hook shim's queue (applyBatch), the synchronous hook and the readers that
// apply what a harness stated in its own files with one event each (applyToStore).
//
// Exactly once (docs/contract.md, "The hook shim"; docs/reliability.md, "Stalled and killed writers"): an event leaves its queue only after a write that names it in
// the record (`queue_applied`), and every holder first removes the entries the record names, then applies the others,
// so an entry that was applied but is still queued is always named in the record it is in: a holder killed or stopped
// between its write and its dequeue never has its batch applied twice. Writes are fenced by the lock (record-lock.ts):
// a holder whose lock was taken over writes nothing.
import { lstatSync, unlinkSync } from "node:fs";
import { basename } from "node:path";
import { digestOf, instanceDigest, placeholderCanonicalId } from "../core/identity.ts";
import type { Clock } from "../core/clock.ts";
import type { LifecycleEvent, SessionRecord, Tombstone } from "../core/schema.ts";
import { applyEvent, endedBySuccessor, startOrderOf, tombstoneFor } from "./apply.ts";
import { compareStarts } from "../core/spawn-order.ts";
import { faultPoint } from "./fault-points.ts";
import { fitted } from "./fit.ts";
import { sourceOf } from "./history.ts";
import { ensureStateDirs } from "./paths.ts";
import { withRecordLock, type RecordLock } from "./record-lock.ts";
import { instancePointerPath, readInstancePointer, readRecord, recordPath } from "./records.ts";
import { enqueue, isQueued, queuedEvents, removeEmptySpool } from "./spool.ts";

export interface TransactionContext {
  readonly stateDir: string;
  readonly now: Clock;
  /** How long to wait for a record lock before the event is left queued for the next lock holder. */
  readonly lockBoundMs: number;
  /** When a live holder that shows no progress is taken over (record-lock.ts; default STALE_LOCK_MS). */
  readonly staleLockMs?: number;
  /** Called once the event is applied, queued or refused: from then on nothing is left to save. */
  readonly onSettled?: () => void;
  /** Called with the events just written, in order, once the record's lock is released (notifications start here). */
  readonly onApplied?: (applied: readonly { readonly event: LifecycleEvent }[], sessionsDir: string) => void;
}

export type TransactionOutcome =
  { ok: true; action: "written" | "skipped" | "deferred"; detail: string; canonicalId: string } | { ok: false; detail: string };

/** What became of one queued event: applied (and the record's state it left), or not, and why. */
export interface EntryOutcome {
  readonly applied: boolean;
  readonly detail: string;
  /** The record right after this event, when applied: what it showed, and its count of applied events. */
  readonly after?: {
    readonly status: string;
    readonly detail: string;
    readonly tool: string;
    readonly arrival: number;
    readonly session: string;
    readonly pid: number | null;
  };
}

/** One event of a batch: where it is queued (its entry is removed once applied), and when it happened. */
export interface BatchItem {
  /** The queue entry's path; its name goes into `queue_applied`. */
  readonly path: string;
  /** More files of the same entry, removed with it (the shim's payload file). */
  readonly companions?: readonly string[];
  readonly event: LifecycleEvent;
  /** Epoch ms the event happened (the hook fired): the record's times. */
  readonly at: number;
  /** Called with what became of the event, under the lock, before its entry is removed (the drainer's log). */
  readonly onDone?: (outcome: EntryOutcome) => void;
}

export type BatchOutcome =
  { ok: true; results: ReadonlyMap<string, EntryOutcome> } | { ok: false; reason: "busy" | "failed"; detail: string };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Queue an identified event without waiting for anything (synchronous file writes): what a watchdog does with an event
 * it would otherwise lose. The next lock holder applies it.
 */
export function queueNow(event: LifecycleEvent, stateDir: string): boolean {
  const dirs = ensureStateDirs(stateDir);
  return dirs.ok && enqueue(dirs.sessionsDir, digestOf(event.canonicalId) as string, event).ok;
}

/** One event, now: the synchronous hook, and a fact a reader found in a harness's own files. */
export async function applyToStore(event: LifecycleEvent, context: TransactionContext): Promise<TransactionOutcome> {
  const dirs = ensureStateDirs(context.stateDir);
  if (!dirs.ok) return { ok: false, detail: dirs.detail };
  const { sessionsDir } = dirs;
  const digest = digestOf(event.canonicalId) as string;
  const done = (action: "written" | "skipped" | "deferred", detail: string): TransactionOutcome => ({
    ok: true,
    action,
    detail,
    canonicalId: event.canonicalId,
  });

  if (event.identity === "unresolved" && readRecord(recordPath(sessionsDir, digest), context.now()).kind === "tombstone") {
    return done("skipped", "placeholder already migrated to an identified record");
  }
  const own: Pending = { name: OWN_EVENT, event, at: context.now() };
  // The lock is usually free: apply at once, after anything others queued. Only when it is busy, queue the event and
  // wait (bounded) for the lock or for another holder to apply it.
  const now = await withRecordLock(sessionsDir, digest, 0, async (lock) => commit(lock, sessionsDir, digest, context, [own]));
  let drained: typeof now;
  let queuedPath: string | undefined;
  if (now.ok || now.reason !== "timeout") drained = now;
  else {
    const queued = enqueue(sessionsDir, digest, event);
    if (!queued.ok) return { ok: false, detail: queued.detail };
    context.onSettled?.();
    queuedPath = queued.path;
    drained = await withRecordLock(sessionsDir, digest, context.lockBoundMs, async (lock) => commit(lock, sessionsDir, digest, context), {
      stopWaiting: () => !isQueued(queued.path),
    });
  }
  // The event is applied, queued or refused: a watchdog firing during the steps below must not queue it again.
  context.onSettled?.();
  if (!drained.ok) {
    return drained.reason === "not-needed"
      ? done("deferred", "applied by a concurrent hook")
      : drained.reason === "timeout"
        ? done("deferred", "record busy: the event stays queued for the next lock holder")
        : { ok: false, detail: drained.detail };
  }
  if (drained.value.failure) {
    // Our own event was not queued: a fenced or failed write leaves it to be saved, as a busy lock does.
    if (!queuedPath && enqueue(sessionsDir, digest, event).ok) return done("deferred", `not written (${drained.value.failure}): queued`);
    return queuedPath
      ? done("deferred", `not written (${drained.value.failure}): stays queued`)
      : { ok: false, detail: drained.value.failure };
  }
  await afterWrite(sessionsDir, drained.value.applied, context);
  const mine = drained.value.outcomes.get(queuedPath ? basename(queuedPath) : OWN_EVENT);
  if (!mine) return done("deferred", "applied by a concurrent hook");
  return mine.applied ? done("written", `${event.eventId} -> ${event.status}`) : done("skipped", mine.detail);
}

/**
 * A batch of queued events for one record (the drainer): under the record's lock, with everything else queued for
 * it, in order, in as few writes as the record's bound on named entries allows; then each entry and its companions
 * are removed. A busy lock (within `lockBoundMs`) or a failed write leaves every entry queued for a later try.
 */
export async function applyBatch(
  sessionsDir: string,
  digest: string,
  items: readonly BatchItem[],
  context: TransactionContext,
): Promise<BatchOutcome> {
  const pending: Pending[] = items.map((item) => ({ ...item, name: basename(item.path) }));
  const locked = await withRecordLock(
    sessionsDir,
    digest,
    context.lockBoundMs,
    async (lock) => commit(lock, sessionsDir, digest, context, pending),
    context.staleLockMs === undefined ? {} : { staleMs: context.staleLockMs },
  );
  if (!locked.ok) return { ok: false, reason: locked.reason === "timeout" ? "busy" : "failed", detail: locked.detail };
  if (locked.value.failure) return { ok: false, reason: "failed", detail: locked.value.failure };
  await afterWrite(sessionsDir, locked.value.applied, context);
  return { ok: true, results: locked.value.outcomes };
}

/** After the record's lock is released: notifications, then the records this one's events change (other locks). */
async function afterWrite(sessionsDir: string, applied: Committed["applied"], context: TransactionContext): Promise<void> {
  if (applied.length === 0) return;
  context.onApplied?.(applied, sessionsDir);
  const identified = applied.filter((result) => result.event.identity !== "unresolved");
  const last = identified.at(-1);
  if (last) await migratePlaceholder(sessionsDir, last.event, context);
  for (const result of identified)
    if (result.event.startsSession || result.created) await supersedePrevious(sessionsDir, result.event, context);
}

/** Key of the caller's own, unqueued event in Committed.outcomes. */
const OWN_EVENT = "own";

/** An event to apply under the lock: from the record's spool, from a batch, or the caller's own (no path). */
interface Pending {
  readonly name: string;
  readonly path?: string;
  readonly companions?: readonly string[] | undefined;
  readonly event: LifecycleEvent | undefined;
  readonly at: number;
  readonly onDone?: ((outcome: EntryOutcome) => void) | undefined;
}

interface Committed {
  /** Events written to the record, in order. */
  readonly applied: { event: LifecycleEvent; created: boolean }[];
  /** What happened to each entry this holder processed, by name. */
  readonly outcomes: Map<string, EntryOutcome>;
  readonly failure?: string;
}

/**
 * Under the record lock. First the entries the record's last write named (`queue_applied`) are removed: they are
 * applied. Then every event queued in the record's spool and the `given` ones are applied in order, skipping any whose
 * entry is gone (another holder applied and removed it); each event that changes the record is written as a version of
 * its own, naming its entry, before the entry is removed: the lock, the read and the queue are the batch's, and every
 * state still reaches the disk (readers, inotify watchers, `wait`). A write costs tens of microseconds beside the
 * event's shim. Nothing is removed that a successful write did not name.
 */
function commit(
  lock: RecordLock,
  sessionsDir: string,
  digest: string,
  context: TransactionContext,
  given: readonly Pending[] = [],
): Committed {
  const outcomes: Committed["outcomes"] = new Map();
  // Applied in memory since the last write; moved to `committed` once a write has them on disk.
  const applied: Committed["applied"] = [];
  const committed: Committed["applied"] = [];
  const settle = (entry: Pending, outcome: EntryOutcome) => {
    outcomes.set(entry.name, outcome);
    entry.onDone?.(outcome);
  };
  const path = recordPath(sessionsDir, digest);
  const current = readRecord(path, context.now());
  if (current.kind === "invalid" && current.reason === "newer-schema") return { applied: committed, outcomes, failure: current.detail };
  const migrated = current.kind === "tombstone";
  let record: SessionRecord | undefined = current.kind === "record" ? current.record : undefined;
  faultPoint("read");

  const spooled: Pending[] = queuedEvents(sessionsDir, digest).map((entry) => ({
    name: basename(entry.path),
    path: entry.path,
    event: entry.event,
    at: context.now(),
  }));
  const named = new Set(record?.queue_applied ?? []);
  // Named entries are applied: removed now, before a write replaces the names. One that cannot be removed keeps its
  // name in the next write too.
  let carried: string[] = [];
  const queue: Pending[] = [];
  for (const entry of [...spooled, ...given]) {
    if (entry.path === undefined) queue.push(entry);
    else if (named.has(entry.name)) {
      settle(entry, { applied: false, detail: "applied by an earlier write" });
      if (!removeEntry(entry)) carried.push(entry.name);
    } else if (lstatSync(entry.path, { throwIfNoEntry: false }) === undefined)
      settle(entry, { applied: false, detail: "applied by another holder" });
    else queue.push(entry);
  }

  let next = 0;
  do {
    const chunk = queue.slice(next, next + 1);
    next += chunk.length;
    let changed = false;
    for (const entry of chunk) {
      const { event } = entry;
      if (!event) outcomes.set(entry.name, { applied: false, detail: "malformed queue entry dropped" });
      else if (migrated) outcomes.set(entry.name, { applied: false, detail: "placeholder already migrated" });
      else {
        const result = applyEvent(record, event, iso(entry.at));
        if (result.action === "skip") outcomes.set(entry.name, { applied: false, detail: `${result.reason}: ${result.detail}` });
        else {
          record = result.record;
          changed = true;
          applied.push({ event, created: result.created });
          const { status, detail, tool, arrival_sequence: arrival, session_id: session, pid } = result.record;
          outcomes.set(entry.name, { applied: true, detail: "", after: { status, detail, tool, arrival, session, pid } });
        }
      }
    }
    const queued = chunk.filter((entry) => entry.path !== undefined);
    if (record && changed) {
      // Every entry of the chunk is named, the skipped ones too: each was weighed against the record being written.
      const names = [...carried, ...queued.map((entry) => entry.name)];
      const stamped: SessionRecord = { ...record };
      delete stamped.queue_applied;
      if (names.length > 0) stamped.queue_applied = names;
      record = stamped;
      const written = lock.write(path, recordText(record));
      // Leave the rest of the queue as it is: the next holder retries every event not yet removed. What earlier
      // writes of this holder applied stays applied (their entries are gone), and is reported as such.
      if (!written.ok) return { applied: committed, outcomes: new Map(), failure: written.detail };
      committed.push(...applied.splice(0));
      carried = [];
    }
    for (const entry of queued) {
      entry.onDone?.(outcomes.get(entry.name) as EntryOutcome);
      if (!removeEntry(entry)) carried.push(entry.name);
    }
  } while (next < queue.length);
  committed.push(...applied);
  // An empty queue goes, so readers (status, every few seconds) look only at queues that hold something. An enqueue
  // that finds its directory gone creates it again (spool.ts).
  if (spooled.length > 0) removeEmptySpool(sessionsDir, digest);
  return { applied: committed, outcomes };
}

/** Remove a queue entry and its companions; false when the entry itself is still there afterwards. */
function removeEntry(entry: Pending): boolean {
  for (const file of [...(entry.companions ?? []), entry.path as string]) {
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" && file === entry.path) return false;
    }
  }
  return true;
}

function recordText(record: SessionRecord | Tombstone): string {
  return `${JSON.stringify("tombstone" in record ? record : fitted(record), null, 2)}\n`;
}

/** The identified record is written; now retire the placeholder for the same session, if any, for good. */
async function migratePlaceholder(sessionsDir: string, event: LifecycleEvent, context: TransactionContext): Promise<void> {
  const placeholder = placeholderCanonicalId(event.harness, event.sessionId);
  const digest = digestOf(placeholder) as string;
  const path = recordPath(sessionsDir, digest);
  if (!lstatSync(path, { throwIfNoEntry: false })) return;
  await withRecordLock(sessionsDir, digest, context.lockBoundMs, async (lock) => {
    const current = readRecord(path, context.now());
    if (current.kind !== "record") return;
    lock.write(path, recordText(tombstoneFor(placeholder, event.canonicalId, iso(context.now()))));
  });
}

/**
 * One harness process runs one session at a time (/clear, /new, resume): when it starts another, the record of the
 * previous one is ended. The process's pointer to its current session is read and written under its own lock, and
 * when two session starts race, the later-started one is the live one whatever order their hooks finish in: the
 * evidence is the spawn order of the processes the harness started for them (core/spawn-order.ts), kept in each record
 * as `start_order`. Codex's shared daemon hosts several sessions at once and is exempt.
 */
async function supersedePrevious(sessionsDir: string, event: LifecycleEvent, context: TransactionContext): Promise<void> {
  if (event.sharedProcess) return;
  const pointerDigest = instanceDigest(event.harness, event.instanceId);
  const pointer = instancePointerPath(sessionsDir, pointerDigest);
  const mine = startOrderOf(event);
  const end = (digest: string, unless: (record: SessionRecord) => boolean) =>
    withRecordLock(sessionsDir, digest, context.lockBoundMs, async (lock) => {
      // Events still queued for it come first (its own SessionEnd may be among them), as every lock holder does.
      const drained = commit(lock, sessionsDir, digest, context);
      if (drained.failure) return;
      const path = recordPath(sessionsDir, digest);
      const current = readRecord(path, context.now());
      if (current.kind !== "record" || current.record.status === "ended" || unless(current.record)) return;
      lock.write(path, recordText(endedBySuccessor(current.record, event.eventId, iso(context.now()), sourceOf(event))));
    });
  // Under the pointer's lock only the decision and the pointer's write, so a burst of racing starts (a dozen hooks at
  // once) passes through it within the bound; the loser is ended after the lock is released. The pointer only ever
  // moves to a later start, so each record is the loser of at most one decision.
  const decided = await withRecordLock(sessionsDir, pointerName(pointerDigest), context.lockBoundMs, async (lock) => {
    const previous = readInstancePointer(pointer);
    if (previous === event.canonicalId) return undefined;
    const previousDigest = previous === undefined ? undefined : digestOf(previous);
    const point = () => lock.write(pointer, `${JSON.stringify({ schema_version: 1, canonical_id: event.canonicalId }, null, 2)}\n`);
    if (previousDigest === undefined) {
      point();
      return undefined;
    }
    const current = readRecord(recordPath(sessionsDir, previousDigest), context.now());
    // The session the pointer names started after this one: this one is the session that was replaced.
    if (current.kind === "record" && compareStarts(current.record.start_order, mine) > 0) return digestOf(event.canonicalId) as string;
    point();
    return previousDigest;
  });
  if (decided.ok && decided.value !== undefined) await end(decided.value, (record) => compareStarts(record.start_order, mine) > 0);
}

/** The pointer's own lock (`instance-<digest>.json.lock`), taken with the record lock's machinery. */
function pointerName(pointerDigest: string): string {
  return `instance-${pointerDigest}`;
}
