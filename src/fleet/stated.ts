// Hook gaps filled from what the harness itself writes (docs/contract.md, "Sources of state"): before the fleet is
// shown, each running or waiting record whose harness states turn outcomes in its own files (src/harnesses/stated.ts)
// is checked there: the new lines of its transcript (bounded, incremental, each line read once: transcript-cursor.ts)
// and, for Claude Code, the live process's own state file. A fact found becomes an event applied by the one store
// transaction, like a hook event, and only when the harness wrote it after the record's last applied event
// (apply.ts). Nothing is inferred from silence or time: no fact, no change. No daemon: readers call this.
import type { Clock } from "../core/clock.ts";
import type { LifecycleEvent, SessionRecord } from "../core/schema.ts";
import { statedStateReader } from "../harnesses/stated.ts";
import type { StatedFact, StatedStateReader, StatedSubject } from "../harnesses/contract.ts";
import { readJsonFile, readRecord, recordPath, type ListedRecord } from "../store/records.ts";
import { DEFAULT_READ_BYTES, cursorPath, loadCursor, readNewLines, saveCursor } from "../store/transcript-cursor.ts";
import { sessionsDirOf } from "../store/paths.ts";

export interface StatedContext {
  readonly stateDir: string;
  readonly now: Clock;
  /** Transcript bytes read per record and call. */
  readonly readBytes?: number;
}

/** How long a reader waits for a busy record lock before it leaves the fact for its next look. */
const LOCK_BOUND_MS = 300;
/** Claude's per-process state file is well under 1 KiB. */
const PROCESS_STATE_BYTES = 16 * 1024;
/** The states a fact may end: a turn in progress. */
const OPEN_TURN = new Set<string>(["running", "waiting"]);

/**
 * Check every record with an open turn against what its harness wrote; returns the records that changed, by digest.
 * Failures to read are no facts: the record stays as its hooks left it.
 */
export async function applyStatedStates(records: readonly ListedRecord[], context: StatedContext): Promise<Map<string, SessionRecord>> {
  const changed = new Map<string, SessionRecord>();
  for (const { digest, record } of records) {
    if (!OPEN_TURN.has(record.status) || !record.transcript_path) continue;
    const reader = await statedStateReader(record.harness);
    if (!reader) continue;
    const fact = latest([processStateFact(reader, record), transcriptFact(reader, record, digest, context)]);
    if (!fact) continue;
    // The store transaction (and the record lock under it) loads only when there is a fact to apply: status, next, focus
    // and the picker's first screen usually find none, and the build keeps it in its own bundle (scripts/build.mjs).
    const { applyToStore } = await import("../store/transaction.ts");
    const outcome = await applyToStore(statedEvent(record, fact.fact, fact.source), {
      stateDir: context.stateDir,
      now: context.now,
      lockBoundMs: LOCK_BOUND_MS,
    });
    if (!outcome.ok || outcome.action !== "written") continue;
    const read = readRecord(recordPath(sessionsDirOf(context.stateDir), digest), context.now());
    if (read.kind === "record") changed.set(digest, read.record);
  }
  return changed;
}

type SourcedFact = { fact: StatedFact; source: "transcript" | "session-state" };

function latest(facts: readonly (SourcedFact | undefined)[]): SourcedFact | undefined {
  let best: SourcedFact | undefined;
  for (const fact of facts) if (fact && (!best || Date.parse(fact.fact.at) > Date.parse(best.fact.at))) best = fact;
  return best;
}

const subjectOf = (record: SessionRecord): StatedSubject => ({
  sessionId: record.session_id,
  pid: record.pid,
  processStart: record.process_start,
});

function processStateFact(reader: StatedStateReader, record: SessionRecord): SourcedFact | undefined {
  if (!reader.processState || record.pid === null || !record.transcript_path) return undefined;
  const path = reader.processState.path(record.transcript_path, record.pid);
  if (!path) return undefined;
  const read = readJsonFile(path, PROCESS_STATE_BYTES);
  if (read.kind !== "json") return undefined;
  const fact = reader.processState.interpret(read.value, subjectOf(record));
  return fact ? { fact, source: "session-state" } : undefined;
}

/** The last fact among the transcript's new lines; the cursor moves past every line read, fact or not. */
function transcriptFact(reader: StatedStateReader, record: SessionRecord, digest: string, context: StatedContext): SourcedFact | undefined {
  const path = record.transcript_path as string;
  const where = cursorPath(context.stateDir, digest);
  const previous = loadCursor(where);
  const read = readNewLines(path, previous, { maxBytes: context.readBytes ?? DEFAULT_READ_BYTES });
  if (!read.ok) return undefined;
  let found: StatedFact | undefined;
  const subject = subjectOf(record);
  for (const line of read.lines) {
    if (!reader.lineMentions.some((mention) => line.text.includes(mention))) continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      continue;
    }
    found = reader.interpretLine(value, subject) ?? found;
  }
  if (!previous || previous.offset !== read.cursor.offset || previous.tail !== read.cursor.tail || previous.ino !== read.cursor.ino)
    saveCursor(context.stateDir, where, read.cursor);
  return found ? { fact: found, source: "transcript" } : undefined;
}

function statedEvent(record: SessionRecord, fact: StatedFact, source: SourcedFact["source"]): LifecycleEvent {
  return {
    harness: record.harness,
    alias: source,
    eventId: `${record.harness}.${fact.event}`,
    canonicalId: record.canonical_id,
    sessionId: record.session_id,
    instanceId: record.instance_id,
    identity: record.identity,
    pid: record.pid,
    processStart: record.process_start,
    cwd: record.cwd,
    status: fact.status,
    detail: fact.detail,
    tool: "",
    sequence: null,
    startsSession: false,
    mayCreate: false,
    sharedProcess: false,
    // Only a turn in progress is ended by a fact; every other state stays as its hooks set it.
    yieldsTo: ["started", "idle", "error", "ended"],
    terminal: record.terminal,
    stated: { source, at: fact.at },
  };
}
