// Who needs the user first: the one attention ranking that list, the picker, next, status and the MCP server share.
// waiting, error, idle-but-unseen, running, started, idle, discovered, ended. An idle session the user has not looked
// at since it went idle (a finished turn nobody has read) outranks running ones; once seen it sinks below them.
import { isUnseen, type SeenMarks } from "./seen.ts";
import type { SessionView } from "./view.ts";

export const ATTENTION_ORDER = ["waiting", "error", "idle-unseen", "running", "started", "idle", "discovered", "ended"] as const;
export type AttentionRank = (typeof ATTENTION_ORDER)[number];

/** The ranks that need the user: an agent waiting for an answer, a failed turn, a finished turn not yet seen. */
const NEEDS_USER: ReadonlySet<AttentionRank> = new Set(["waiting", "error", "idle-unseen"]);

export function rankOf(session: SessionView, seen: SeenMarks): AttentionRank {
  return session.status === "idle" && isUnseen(session, seen) ? "idle-unseen" : session.status;
}

export function needsAttention(session: SessionView, seen: SeenMarks): boolean {
  return NEEDS_USER.has(rankOf(session, seen));
}

/**
 * Sorted by rank, then the most recent change first, then id for a stable order. Each key is computed once per
 * session, not once per comparison, and ids compare by code unit: with 500 sessions, `Date.parse` and `localeCompare`
 * inside the comparator cost more than reading the records.
 */
export function sortByAttention<T extends SessionView>(sessions: readonly T[], seen: SeenMarks): T[] {
  return sessions
    .map((session) => ({ session, rank: ATTENTION_ORDER.indexOf(rankOf(session, seen)), changed: Date.parse(session.status_changed_at) }))
    .sort((a, b) => a.rank - b.rank || b.changed - a.changed || (a.session.id < b.session.id ? -1 : a.session.id > b.session.id ? 1 : 0))
    .map((entry) => entry.session);
}

/**
 * The session `next` jumps to: the most urgent rank that has any session; among equals, the one after the session
 * `next` chose last time (cycling), else the first. Ended sessions are never a destination.
 */
export function chooseNext(sessions: readonly SessionView[], seen: SeenMarks, previous: string | undefined): SessionView | undefined {
  return cycleNext(
    sortByAttention(sessions, seen),
    (session) => rankOf(session, seen),
    (session) => session.id,
    previous,
  );
}

/**
 * The first live row of an attention-sorted list, or, when `previous` (a key) is among the equally urgent first rows,
 * the one after it: running `next` again cycles through them. Shared by this machine's `next` and the one across hosts.
 */
export function cycleNext<T extends { readonly status: string }>(
  sorted: readonly T[],
  rank: (row: T) => AttentionRank,
  key: (row: T) => string,
  previous: string | undefined,
): T | undefined {
  const candidates = sorted.filter((row) => row.status !== "ended" && row.status !== "discovered");
  const first = candidates[0];
  if (!first) return undefined;
  const equals = candidates.filter((row) => rank(row) === rank(first));
  const at = equals.findIndex((row) => key(row) === previous);
  return equals[(at + 1) % equals.length];
}
