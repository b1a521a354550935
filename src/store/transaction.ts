// The one transaction that applies a lifecycle event to the store: take the record's lock (or queue the event in its
// spool when the lock is busy), apply everything queued plus this event in order, write the record once, then retire
// a migrated placeholder and end the session this process ran before. Every writer of records goes through here.
import { lstatSync } from "node:fs";
import { basename } from "node:path";
import { digestOf, instanceDigest, placeholderCanonicalId } from "../core/identity.ts";
import type { Clock } from "../core/clock.ts";
import type { LifecycleEvent, SessionRecord } from "../core/schema.ts";
import { applyEvent, endedBySuccessor, startOrderOf, tombstoneFor } from "./apply.ts";
import { LIMITS } from "../core/bounds.ts";
import { compareStarts } from "../core/spawn-order.ts";
import { sourceOf } from "./history.ts";
import { ensureStateDirs } from "./paths.ts";
import { withRecordLock } from "./record-lock.ts";
import { instancePointerPath, readInstancePointer, readRecord, recordPath, writeJsonAtomic, writeRecord } from "./records.ts";
import { enqueue, isQueued, queuedEvents, removeEmptySpool, removeQueued } from "./spool.ts";

export interface TransactionContext {
  readonly stateDir: string;
  readonly now: Clock;
  /** How long to wait for a record lock before the event is left queued for the next lock holder. */
  readonly lockBoundMs: number;
  /** Called once the event is applied, queued or refused: from then on nothing is left to save. */
  readonly onSettled?: () => void;
  /** Called with the events just written, in order, once the record's lock is released (the hook starts notifications). */
  readonly onApplied?: (applied: readonly { readonly event: LifecycleEvent }[], sessionsDir: string) => void;
}

export type TransactionOutcome =
  { ok: true; action: "written" | "skipped" | "deferred"; detail: string; canonicalId: string } | { ok: false; detail: string };

/**
 * Queue an identified event without waiting for anything (synchronous file writes): what a watchdog does with an event
 * it would otherwise lose. The next lock holder applies it.
 */
export function queueNow(event: LifecycleEvent, stateDir: string): boolean {
  const dirs = ensureStateDirs(stateDir);
  return dirs.ok && enqueue(dirs.sessionsDir, digestOf(event.canonicalId) as string, event).ok;
}

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
  // The lock is usually free: apply at once, after anything others queued. Only when it is busy, queue the event and
  // wait (bounded) for the lock or for another holder to apply it.
  const now = await withRecordLock(sessionsDir, digest, 0, async () => drain(sessionsDir, digest, context, event));
  let drained: typeof now;
  let queuedPath: string | undefined;
  if (now.ok || now.reason !== "timeout") drained = now;
  else {
    const queued = enqueue(sessionsDir, digest, event);
    if (!queued.ok) return { ok: false, detail: queued.detail };
    context.onSettled?.();
    queuedPath = queued.path;
    drained = await withRecordLock(sessionsDir, digest, context.lockBoundMs, async () => drain(sessionsDir, digest, context), {
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
  const { applied, failure } = drained.value;
  if (failure) return { ok: false, detail: failure };
  context.onApplied?.(applied, sessionsDir);
  // Placeholder migration and session switching touch other records: done after this record's lock is released.
  const identified = applied.filter((result) => result.event.identity !== "unresolved");
  const last = identified.at(-1);
  if (last) await migratePlaceholder(sessionsDir, last.event, context);
  for (const result of identified)
    if (result.event.startsSession || result.created) await supersedePrevious(sessionsDir, result.event, context);
  const mine = drained.value.outcomes.get(queuedPath ?? OWN_EVENT);
  if (!mine) return done("deferred", "applied by a concurrent hook");
  return mine.applied ? done("written", `${event.eventId} -> ${event.status}`) : done("skipped", mine.detail);
}

/** Key of the caller's own, unqueued event in Drained.outcomes. */
const OWN_EVENT = "own";

interface Drained {
  /** Events written to the record, in order. */
  readonly applied: { event: LifecycleEvent; created: boolean }[];
  /** What happened to each queued entry this holder processed. */
  readonly outcomes: Map<string, { applied: boolean; detail: string }>;
  readonly failure?: string;
}

/**
 * Under the record lock: apply every queued event in arrival order, then `own` (the caller's event, not queued), and
 * write the record once per batch of queued entries, naming the batch in the record (`queue_applied`) before dequeuing
 * it, so a reader that finds an entry still queued knows whether the record it read already has it (fleet/queued.ts).
 */
function drain(sessionsDir: string, digest: string, context: TransactionContext, own?: LifecycleEvent): Drained {
  const entries = queuedEvents(sessionsDir, digest);
  const outcomes: Drained["outcomes"] = new Map();
  const applied: Drained["applied"] = [];
  const current = readRecord(recordPath(sessionsDir, digest), context.now());
  if (current.kind === "invalid" && current.reason === "newer-schema") return { applied, outcomes, failure: current.detail };
  const migrated = current.kind === "tombstone";
  let record: SessionRecord | undefined = current.kind === "record" ? current.record : undefined;
  const nowIso = new Date(context.now()).toISOString();
  for (let start = 0; start === 0 || start < entries.length; start += LIMITS.queueBatch) {
    const batch = entries.slice(start, start + LIMITS.queueBatch);
    const last = start + LIMITS.queueBatch >= entries.length;
    const all = own && last ? [...batch, { path: OWN_EVENT, event: own }] : batch;
    let changed = false;
    for (const { path, event } of all) {
      if (!event) outcomes.set(path, { applied: false, detail: "malformed queue entry dropped" });
      else if (migrated) outcomes.set(path, { applied: false, detail: "placeholder already migrated" });
      else {
        const result = applyEvent(record, event, nowIso);
        if (result.action === "skip") outcomes.set(path, { applied: false, detail: `${result.reason}: ${result.detail}` });
        else {
          record = result.record;
          changed = true;
          applied.push({ event, created: result.created });
          outcomes.set(path, { applied: true, detail: "" });
        }
      }
    }
    if (record && changed) {
      const names = batch.map((entry) => basename(entry.path));
      const stamped: SessionRecord = { ...record };
      delete stamped.queue_applied;
      if (names.length > 0) stamped.queue_applied = names;
      record = stamped;
      const written = writeRecord(sessionsDir, digest, record);
      // Leave the queue as it is: the next holder retries every event not yet dequeued.
      if (!written.ok) return { applied: [], outcomes: new Map(), failure: written.detail };
    }
    removeQueued(batch);
  }
  // An empty queue goes, so readers (status, every few seconds) look only at queues that hold something. An enqueue
  // that finds its directory gone creates it again (spool.ts).
  if (entries.length > 0) removeEmptySpool(sessionsDir, digest);
  return { applied, outcomes };
}

/** The identified record is written; now retire the placeholder for the same session, if any, for good. */
async function migratePlaceholder(sessionsDir: string, event: LifecycleEvent, context: TransactionContext): Promise<void> {
  const placeholder = placeholderCanonicalId(event.harness, event.sessionId);
  const digest = digestOf(placeholder) as string;
  const path = recordPath(sessionsDir, digest);
  if (!lstatSync(path, { throwIfNoEntry: false })) return;
  await withRecordLock(sessionsDir, digest, context.lockBoundMs, async () => {
    const current = readRecord(path, context.now());
    if (current.kind !== "record") return;
    writeRecord(sessionsDir, digest, tombstoneFor(placeholder, event.canonicalId, new Date(context.now()).toISOString()));
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
  const nowIso = () => new Date(context.now()).toISOString();
  const mine = startOrderOf(event);
  const end = (digest: string, unless: (record: SessionRecord) => boolean) =>
    withRecordLock(sessionsDir, digest, context.lockBoundMs, async () => {
      // Events still queued for it come first (its own SessionEnd may be among them), as every lock holder does.
      const drained = drain(sessionsDir, digest, context);
      if (drained.failure) return;
      const current = readRecord(recordPath(sessionsDir, digest), context.now());
      if (current.kind !== "record" || current.record.status === "ended" || unless(current.record)) return;
      writeRecord(sessionsDir, digest, endedBySuccessor(current.record, event.eventId, nowIso(), sourceOf(event)));
    });
  // Under the pointer's lock only the decision and the pointer's write, so a burst of racing starts (a dozen hooks at
  // once) passes through it within the bound; the loser is ended after the lock is released. The pointer only ever
  // moves to a later start, so each record is the loser of at most one decision.
  const decided = await withRecordLock(sessionsDir, pointerName(pointerDigest), context.lockBoundMs, async () => {
    const previous = readInstancePointer(pointer);
    if (previous === event.canonicalId) return undefined;
    const previousDigest = previous === undefined ? undefined : digestOf(previous);
    if (previousDigest === undefined) {
      writeJsonAtomic(pointer, { schema_version: 1, canonical_id: event.canonicalId });
      return undefined;
    }
    const current = readRecord(recordPath(sessionsDir, previousDigest), context.now());
    // The session the pointer names started after this one: this one is the session that was replaced.
    if (current.kind === "record" && compareStarts(current.record.start_order, mine) > 0) return digestOf(event.canonicalId) as string;
    writeJsonAtomic(pointer, { schema_version: 1, canonical_id: event.canonicalId });
    return previousDigest;
  });
  if (decided.ok && decided.value !== undefined) await end(decided.value, (record) => compareStarts(record.start_order, mine) > 0);
}

/** The pointer's own lock (`instance-<digest>.json.lock`), taken with the record lock's machinery. */
function pointerName(pointerDigest: string): string {
  return `instance-${pointerDigest}`;
}
