// Why does a session say what it says? The last events that made its current state: when, from which source (a
// harness's hook, Pi's bridge, the liveness check), and what each changed, plus the waits still open. One query,
// called by `tongs-agents explain` and the MCP tool `explain_session`; both only translate its result.
import type { PendingWait, SessionRecord } from "../core/schema.ts";
import { answersOf, type AnswerEntry } from "../store/answer-log.ts";
import { findSession, type FindResult, type FleetContext } from "./queries.ts";
import type { EffectiveRecord } from "./queued.ts";
import type { SessionView, ViewStatus } from "./view.ts";

export interface ExplainEntry {
  /** ISO 8601: when the event was applied (the liveness check: now). */
  readonly at: string;
  /** `hook`, `bridge` or `liveness`; the list may grow (schema.ts, EVENT_SOURCES). */
  readonly source: string;
  /** The event, e.g. `claude.permission-request`, or `liveness-check`. */
  readonly event: string;
  /** The state after it. */
  readonly status: ViewStatus;
  readonly change: string;
  /** False for what readers apply without writing: events still queued for the record, the liveness verdict. */
  readonly recorded: boolean;
}

export interface Explanation {
  readonly session: SessionView;
  /** Open waits, oldest first: while any is open the session shows the newest one. */
  readonly pending: Pick<PendingWait, "kind" | "tool" | "detail" | "since">[];
  /** Oldest first, at most the record's history bound plus the liveness verdict. */
  readonly entries: ExplainEntry[];
  /** Changes shown but not written yet: events queued for the record (its lock was busy), a session replaced meanwhile. */
  readonly unwritten: number;
  /** Anything the entries cannot say (a record older than its history, a process without a record). */
  readonly note: string;
}

export type ExplainResult = { ok: true; explanation: Explanation } | Exclude<FindResult, { ok: true }>;

/** Resolved like every query (queries.ts, findSession: ids, PID, directory, repository). */
export async function explainSession(context: FleetContext, query: string): Promise<ExplainResult> {
  const found = await findSession(context, query);
  if (!found.ok) return found;
  const nowIso = new Date((context.now ?? Date.now)()).toISOString();
  const explanation = explanationOf(found.session, found.record, nowIso);
  const answers = answersOf(context.stateDir, found.session.id).map(answerEntry);
  if (answers.length === 0) return { ok: true, explanation };
  const entries = [...explanation.entries, ...answers].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return { ok: true, explanation: { ...explanation, entries } };
}

/** An answer sent to one of the session's waits (src/answer/), shown among the events: who answered what, and when. */
function answerEntry(answer: AnswerEntry): ExplainEntry {
  return {
    at: answer.at,
    source: "answer",
    event: "answer",
    status: "waiting",
    change: `${answer.by} answered wait ${answer.wait}: ${answer.reply}, option ${answer.option} (${answer.channel})`,
    recorded: true,
  };
}

export function explanationOf(session: SessionView, effective: EffectiveRecord | undefined, nowIso: string): Explanation {
  if (!effective) {
    return {
      session,
      pending: [],
      entries: [],
      unwritten: 0,
      note: session.identity === "discovered" ? "a running process with no record: no hook or bridge event has arrived for it" : "",
    };
  }
  const { record, unwritten } = effective;
  const history = record.history ?? [];
  const entries: ExplainEntry[] = history.map((entry, index) => ({ ...entry, recorded: index < history.length - unwritten }));
  const note =
    history.length === 0
      ? `recorded before history was kept: the last event was ${record.last_event || "unknown"} at ${record.updated_at}`
      : "";
  if (session.stale) entries.push(livenessEntry(record, session.stale_reason, nowIso));
  return {
    session,
    pending: (record.pending ?? []).map(({ kind, tool, detail, since }) => ({ kind, tool, detail, since })),
    entries,
    unwritten,
    note,
  };
}

/** Readers check that the record's process still runs (liveness.ts); a record whose process is gone shows `ended`. */
function livenessEntry(record: SessionRecord, reason: string, nowIso: string): ExplainEntry {
  return {
    at: nowIso,
    source: "liveness",
    event: "liveness-check",
    status: "ended",
    change: `recorded ${record.status}, shown ended: ${reason}`,
    recorded: false,
  };
}
