// The record state machine: how one validated lifecycle event changes (or does not change) a session record, and the
// records the store transaction writes on its own (a session ended by its successor, a placeholder's tombstone).
// Pure: the hook calls it under the record lock with the record it just re-read.
import type { LifecycleEvent, SessionRecord, Tombstone } from "../core/schema.ts";

export type ApplyResult =
  | { action: "write"; record: SessionRecord; created: boolean }
  | { action: "skip"; reason: "no-record" | "stale-sequence" | "already-ended" | "kept" | "superseded"; detail: string };

export function applyEvent(existing: SessionRecord | undefined, event: LifecycleEvent, nowIso: string): ApplyResult {
  if (!existing) {
    if (!event.mayCreate) return { action: "skip", reason: "no-record", detail: `${event.eventId} without a record does not create one` };
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
      status: event.status,
      detail: event.detail,
      tool: event.tool,
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
    return { action: "write", record, created: true };
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
    return { action: "skip", reason: "superseded", detail: `${event.eventId} stated at ${event.stated.at}, before the record's ${existing.updated_at}` };
  }
  const record: SessionRecord = {
    ...existing,
    identity: event.identity,
    pid: event.pid,
    process_start: event.processStart,
    cwd: event.cwd,
    status: event.status,
    detail: event.detail,
    tool: event.tool,
    sequence: event.sequence ?? existing.sequence,
    arrival_sequence: existing.arrival_sequence + 1,
    last_event: event.eventId,
    updated_at: nowIso,
    status_changed_at: event.status === existing.status ? existing.status_changed_at : nowIso,
  };
  if (event.transcriptPath) record.transcript_path = event.transcriptPath;
  if (event.startsSession) {
    record.terminal = event.terminal;
    const launch = event.launch ?? existing.launch;
    if (launch) record.launch = launch;
  }
  return { action: "write", record, created: false };
}

/** The record of a session its process left for another one (/clear, /new, resume): ended by the newer session's event. */
export function endedBySuccessor(record: SessionRecord, eventId: string, nowIso: string): SessionRecord {
  return {
    ...record,
    status: "ended",
    detail: "replaced by a new session in the same process",
    tool: "",
    arrival_sequence: record.arrival_sequence + 1,
    last_event: eventId,
    updated_at: nowIso,
    status_changed_at: nowIso,
  };
}

/** What a placeholder record becomes once its session is identified: never revived afterwards. */
export function tombstoneFor(placeholder: string, migratedTo: string, nowIso: string): Tombstone {
  return { schema_version: 1, tombstone: true, canonical_id: placeholder, migrated_to: migratedTo, created_at: nowIso };
}
