// The record state machine: how one validated lifecycle event changes (or does not change) a session record, and the
// records the store transaction writes on its own (a session ended by its successor, a placeholder's tombstone).
// Pure: the hook calls it under the record lock with the record it just re-read, and readers call it to show events
// still queued (fleet/queued.ts).
import type { EventSource, LifecycleEvent, SessionRecord, StartOrder, Tombstone } from "../core/schema.ts";
import { appended, entryFor, sourceOf } from "./history.ts";
import { nextWaits, type Waits } from "./waits.ts";

export type ApplyResult =
  | { action: "write"; record: SessionRecord; created: boolean }
  | { action: "skip"; reason: "no-record" | "stale-sequence" | "already-ended" | "kept" | "superseded"; detail: string };

export function applyEvent(existing: SessionRecord | undefined, event: LifecycleEvent, nowIso: string): ApplyResult {
  if (!existing) {
    if (!event.mayCreate) return { action: "skip", reason: "no-record", detail: `${event.eventId} without a record does not create one` };
    const waits = nextWaits(undefined, event, nowIso);
    const record: SessionRecord = {
      schema_version: 1,
      canonical_id: event.canonicalId,
      harness: event.harness,
      session_id: event.sessionId,
      instance_id: event.instanceId,
      identity: event.identity,
      pid: event.pid,
      process_start: event.processStart,
      cwd: event.cwd,
      ...shown(event, waits),
      sequence: event.sequence,
      arrival_sequence: 1,
      last_event: event.eventId,
      created_at: nowIso,
      updated_at: nowIso,
      status_changed_at: nowIso,
      terminal: event.terminal,
    };
    if (event.launch) record.launch = event.launch;
    if (event.transcriptPath) record.transcript_path = event.transcriptPath;
    const order = startOrderOf(event);
    if (order) record.start_order = order;
    return { action: "write", record: finished(undefined, record, event, waits, nowIso), created: true };
  }
  if (event.sequence !== null && existing.sequence !== null && event.sequence <= existing.sequence) {
    return { action: "skip", reason: "stale-sequence", detail: `sequence ${event.sequence} is not after ${existing.sequence}` };
  }
  if (existing.status === "ended" && !event.startsSession) {
    return { action: "skip", reason: "already-ended", detail: `${event.eventId} after the session ended` };
  }
  if (event.yieldsTo?.includes(existing.status)) {
    return { action: "skip", reason: "kept", detail: `${event.eventId} does not replace ${existing.status}` };
  }
  // What the harness wrote counts only when it wrote it after the last event this record applied: an older line (or
  // the same line read again by another reader) never overrides a newer hook event.
  if (event.stated && Date.parse(event.stated.at) <= Date.parse(existing.updated_at)) {
    return {
      action: "skip",
      reason: "superseded",
      detail: `${event.eventId} stated at ${event.stated.at}, before the record's ${existing.updated_at}`,
    };
  }
  const waits = nextWaits(existing, event, nowIso);
  const next = shown(event, waits);
  const record: SessionRecord = {
    ...existing,
    identity: event.identity,
    pid: event.pid,
    process_start: event.processStart,
    cwd: event.cwd,
    ...next,
    sequence: event.sequence ?? existing.sequence,
    arrival_sequence: existing.arrival_sequence + 1,
    last_event: event.eventId,
    updated_at: nowIso,
    status_changed_at: next.status === existing.status ? existing.status_changed_at : nowIso,
  };
  if (event.transcriptPath) record.transcript_path = event.transcriptPath;
  if (event.startsSession) {
    record.terminal = event.terminal;
    const launch = event.launch ?? existing.launch;
    if (launch) record.launch = launch;
    const order = startOrderOf(event);
    if (order) record.start_order = order;
  }
  return { action: "write", record: finished(existing, record, event, waits, nowIso), created: false };
}

/** While a wait is open the session shows it (the newest one), whatever the event itself would have said. */
function shown(event: LifecycleEvent, waits: Waits): Pick<SessionRecord, "status" | "detail" | "tool"> {
  const wait = waits.pending.at(-1);
  return wait
    ? { status: "waiting", detail: wait.detail, tool: wait.tool }
    : { status: event.status, detail: event.detail, tool: event.tool };
}

/** The waits and the history entry, stored only when there is something to store (absent means none). */
function finished(
  existing: SessionRecord | undefined,
  record: SessionRecord,
  event: LifecycleEvent,
  waits: Waits,
  nowIso: string,
): SessionRecord {
  const done: SessionRecord = { ...record };
  delete done.pending;
  delete done.running_tools;
  if (waits.pending.length > 0) done.pending = waits.pending;
  if (waits.tools.length > 0) done.running_tools = waits.tools;
  done.history = appended(existing?.history, entryFor(event.eventId, sourceOf(event), existing, done, nowIso, waits.note));
  return done;
}

/** Evidence of when this event (re)started the session in its process (schema.ts, StartOrderSchema). */
export function startOrderOf(event: LifecycleEvent): StartOrder | undefined {
  if (event.spawn) return { spawn_start: event.spawn.start, spawn_pid: event.spawn.pid };
  return event.sequence === null ? undefined : { sequence: event.sequence };
}

/** The record of a session its process left for another one (/clear, /new, resume): ended by the newer session's event. */
export function endedBySuccessor(record: SessionRecord, eventId: string, nowIso: string, source: EventSource = "hook"): SessionRecord {
  const ended: SessionRecord = {
    ...record,
    status: "ended",
    detail: "replaced by a new session in the same process",
    tool: "",
    arrival_sequence: record.arrival_sequence + 1,
    last_event: eventId,
    updated_at: nowIso,
    status_changed_at: nowIso,
  };
  delete ended.pending;
  delete ended.running_tools;
  ended.history = appended(record.history, entryFor(eventId, source, record, ended, nowIso, "a later session started in the same process"));
  return ended;
}

/** What a placeholder record becomes once its session is identified: never revived afterwards. */
export function tombstoneFor(placeholder: string, migratedTo: string, nowIso: string): Tombstone {
  return { schema_version: 1, tombstone: true, canonical_id: placeholder, migrated_to: migratedTo, created_at: nowIso };
}
