// The record state machine: how one validated lifecycle event changes (or does not change) a session record, and the
// records the store transaction writes on its own (a session ended by its successor, a placeholder's tombstone).
// Pure: the hook calls it under the record lock with the record it just re-read, and readers call it to show events
// still queued (fleet/queued.ts).
import { LIMITS } from "../core/bounds.ts";
import type { EventSource, LifecycleEvent, LifecycleStatus, SessionRecord, StartOrder, Tombstone } from "../core/schema.ts";
import { appended, entryFor, sourceOf } from "./history.ts";
import { nextWaits, type Waits } from "./waits.ts";

export type ApplyResult =
  | { action: "write"; record: SessionRecord; created: boolean }
  | { action: "skip"; reason: "no-record" | "stale-sequence" | "already-ended" | "kept" | "superseded"; detail: string };

export function applyEvent(existing: SessionRecord | undefined, given: LifecycleEvent, nowIso: string): ApplyResult {
  const event = afterCompaction(existing, given);
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
    return {
      action: "write",
      record: finished(undefined, besideState(undefined, record, event, nowIso), event, waits, nowIso),
      created: true,
    };
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
  if (event.subagent) return { action: "write", record: withSubagent(existing, event, event.subagent, nowIso), created: false };
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
  return {
    action: "write",
    record: finished(existing, besideState(existing, record, event, nowIso), event, waits, nowIso),
    created: false,
  };
}

/**
 * What the event says beside the state (docs/contract.md, "Limits", "Compaction and subagents"): the limit that ended
 * the turn and compaction in progress hold only as long as the state the event set; the model stays until another
 * event names one; subagents go when a session starts or ends.
 */
function besideState(existing: SessionRecord | undefined, record: SessionRecord, event: LifecycleEvent, nowIso: string): SessionRecord {
  const next: SessionRecord = { ...record };
  delete next.limit;
  delete next.compacting;
  if (event.limit && next.status === "error") next.limit = event.limit;
  if (event.compaction?.phase === "start" && next.status === "running") {
    // A start within a compaction (Claude Code's SessionStart `compact`) keeps what the first start said.
    const going = existing?.compacting;
    next.compacting = going
      ? { ...going, trigger: event.compaction.trigger || going.trigger }
      : { since: nowIso, trigger: event.compaction.trigger, was: existing?.status ?? "started" };
  }
  if (event.model) next.model = { id: event.model, at: nowIso };
  if (event.startsSession || next.status === "ended") delete next.subagents;
  return next;
}

/**
 * The end of a compaction restores the state it began in: between turns (`/compact` at the prompt) the session is idle
 * again, inside a turn it goes on running. When its start was never seen, the harness's trigger says which.
 */
function afterCompaction(existing: SessionRecord | undefined, event: LifecycleEvent): LifecycleEvent {
  if (event.compaction?.phase !== "end") return event;
  const was = existing?.compacting?.was;
  const running = was === undefined ? event.compaction.trigger !== "manual" : was === "running" || was === "waiting";
  const status: LifecycleStatus = running ? "running" : "idle";
  return { ...event, status, ...(running ? {} : { wait: "clear" as const }) };
}

/** A subagent started or stopped: the list changes, the state stays as the parent's own events left it. */
function withSubagent(
  existing: SessionRecord,
  event: LifecycleEvent,
  change: NonNullable<LifecycleEvent["subagent"]>,
  nowIso: string,
): SessionRecord {
  const before = existing.subagents ?? [];
  const others = before.filter((agent) => agent.id !== change.id);
  const subagents =
    change.op === "start" ? [...others, { id: change.id, type: change.type, since: nowIso }].slice(-LIMITS.subagents) : others;
  const record: SessionRecord = {
    ...existing,
    sequence: event.sequence ?? existing.sequence,
    arrival_sequence: existing.arrival_sequence + 1,
    last_event: event.eventId,
    updated_at: nowIso,
  };
  delete record.subagents;
  if (subagents.length > 0) record.subagents = subagents;
  if (event.model) record.model = { id: event.model, at: nowIso };
  const name = change.type || change.id;
  const note =
    change.op === "start"
      ? `subagent ${name} started (${subagents.length} running)`
      : others.length < before.length
        ? `subagent ${name} stopped (${subagents.length} running)`
        : `subagent ${name} stopped (not seen starting)`;
  record.history = appended(existing.history, entryFor(event.eventId, sourceOf(event), existing, record, nowIso, note));
  return record;
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
  delete ended.limit;
  delete ended.compacting;
  delete ended.subagents;
  ended.history = appended(record.history, entryFor(eventId, source, record, ended, nowIso, "a later session started in the same process"));
  return ended;
}

/** What a placeholder record becomes once its session is identified: never revived afterwards. */
export function tombstoneFor(placeholder: string, migratedTo: string, nowIso: string): Tombstone {
  return { schema_version: 1, tombstone: true, canonical_id: placeholder, migrated_to: migratedTo, created_at: nowIso };
}
