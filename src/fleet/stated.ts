// Hook gaps filled from what the harness itself writes (docs/contract.md, "Sources of state"): before the fleet is
// shown, each live record whose harness states things in its own files (src/harnesses/stated.ts) is checked there:
// the new lines of its transcript (bounded, incremental, each line read once: transcript-cursor.ts) and, for Claude
// Code, the live process's own state file. A turn outcome found for a running or waiting record becomes an event
// applied by the one store transaction, like a hook event, and only when the harness wrote it after the record's last
// applied event (apply.ts). What the lines state beside outcomes (model, context, tokens, quota windows, a limit's
// reset: docs/limits.md) is kept with the cursor and returned for the view. Nothing is inferred from silence or time:
// no fact, no change. No daemon: readers call this.
import type { Clock } from "../core/clock.ts";
import type { LifecycleEvent, SessionRecord } from "../core/schema.ts";
import { statedStateReader } from "../harnesses/stated.ts";
import type { StatedFact, StatedStateReader, StatedSubject } from "../harnesses/contract.ts";
import type { UsageFacts } from "../core/usage-facts.ts";
import type { TransactionContext } from "../store/transaction.ts";
import { notifyCrossings } from "../store/quota-crossing.ts";
import { readJsonFile, readRecord, recordPath, type ListedRecord } from "../store/records.ts";
import { DEFAULT_READ_BYTES, cursorPath, loadCursor, readNewLines, saveCursor } from "../store/transcript-cursor.ts";
import { sessionsDirOf } from "../store/paths.ts";

export interface StatedContext {
  readonly stateDir: string;
  readonly now: Clock;
  /** Transcript bytes read per record and call. */
  readonly readBytes?: number;
  /** Called with a fact just written (a limit, a failed turn): notifications start here (hook/notify-trigger.ts). */
  readonly onApplied?: TransactionContext["onApplied"];
  /** The caller's environment: its config says whether a quota window crossing a threshold notifies. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface StatedResult {
  /** Records a stated turn outcome changed, by digest. */
  readonly changed: Map<string, SessionRecord>;
  /** What each record's transcript states beside outcomes, by digest (absent: nothing read or stated). */
  readonly facts: Map<string, UsageFacts>;
}

/** How long a reader waits for a busy record lock before it leaves the fact for its next look. */
const LOCK_BOUND_MS = 300;
/** Claude's per-process state file is well under 1 KiB. */
const PROCESS_STATE_BYTES = 16 * 1024;
/** The states a fact may end: a turn in progress. */
const OPEN_TURN = new Set<string>(["running", "waiting"]);

/**
 * Check every live record against what its harness wrote: turn outcomes for records with an open turn, usage for all.
 * Failures to read are no facts: the record stays as its hooks left it.
 */
export async function applyStatedStates(records: readonly ListedRecord[], context: StatedContext): Promise<StatedResult> {
  const changed = new Map<string, SessionRecord>();
  const facts = new Map<string, UsageFacts>();
  for (const { digest, record } of records) {
    if (record.status === "ended" || !record.transcript_path) continue;
    const reader = await statedStateReader(record.harness);
    if (!reader) continue;
    const read = readTranscript(reader, record, digest, context);
    if (read.facts) facts.set(digest, read.facts);
    if (!OPEN_TURN.has(record.status)) continue;
    const fact = latest([processStateFact(reader, record), read.fact]);
    if (!fact) continue;
    // The store transaction (and the record lock under it) loads only when there is a fact to apply: status, next, focus
    // and the picker's first screen usually find none, and the build keeps it in its own bundle (scripts/build.mjs).
    const { applyToStore } = await import("../store/transaction.ts");
    const outcome = await applyToStore(statedEvent(record, fact.fact, fact.source), {
      stateDir: context.stateDir,
      now: context.now,
      lockBoundMs: LOCK_BOUND_MS,
      ...(context.onApplied ? { onApplied: context.onApplied } : {}),
    });
    if (!outcome.ok || outcome.action !== "written") continue;
    const written = readRecord(recordPath(sessionsDirOf(context.stateDir), digest), context.now());
    if (written.kind === "record") changed.set(digest, written.record);
  }
  return { changed, facts };
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

/**
 * The transcript's new lines: the last turn outcome among them, and the usage facts as they stand after them (those
 * saved with the cursor when nothing new was read). The cursor moves past every line read, fact or not, and keeps the
 * facts in the same write.
 */
function readTranscript(
  reader: StatedStateReader,
  record: SessionRecord,
  digest: string,
  context: StatedContext,
): { fact?: SourcedFact; facts?: UsageFacts } {
  const path = record.transcript_path as string;
  const where = cursorPath(context.stateDir, digest);
  const previous = loadCursor(where);
  const read = readNewLines(path, previous, { maxBytes: context.readBytes ?? DEFAULT_READ_BYTES });
  if (!read.ok) return previous?.facts ? { facts: previous.facts } : {};
  let found: StatedFact | undefined;
  let facts: UsageFacts = read.cursor.facts ?? {};
  const subject = subjectOf(record);
  const usage = reader.readUsage ? (reader.usageMentions ?? []) : [];
  for (const line of read.lines) {
    const outcome = reader.lineMentions.some((mention) => line.text.includes(mention));
    const stated = usage.some((mention) => line.text.includes(mention));
    if (!outcome && !stated) continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      continue;
    }
    if (outcome) found = reader.interpretLine(value, subject, facts) ?? found;
    if (stated && reader.readUsage) facts = reader.readUsage(value, subject, facts, read.fromStart);
  }
  const cursor = Object.keys(facts).length > 0 ? { ...read.cursor, facts } : read.cursor;
  if (facts.windows && facts.windows !== previous?.facts?.windows)
    notifyCrossings({ harness: record.harness, canonicalId: () => record.canonical_id }, facts.windows, previous?.facts?.windows ?? [], {
      stateDir: context.stateDir,
      env: context.env ?? process.env,
    });
  // A turn outcome read while the record shows no open turn (its prompt's event still queued for the drainer) is read
  // again once the turn is open: the cursor stays before it, or the outcome would be passed over for good.
  const outcomeHeldBack = found !== undefined && !OPEN_TURN.has(record.status);
  if (
    !outcomeHeldBack &&
    (!previous ||
      previous.offset !== cursor.offset ||
      previous.tail !== cursor.tail ||
      previous.ino !== cursor.ino ||
      previous.facts !== cursor.facts)
  )
    saveCursor(context.stateDir, where, cursor);
  return { ...(found ? { fact: { fact: found, source: "transcript" as const } } : {}), ...(cursor.facts ? { facts: cursor.facts } : {}) };
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
    ...(fact.limit ? { limit: fact.limit } : {}),
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
