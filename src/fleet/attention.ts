// Who needs the user first, for the picker and `next`: waiting, error, idle-but-unseen, running, started, idle,
// discovered, ended. (`list` uses the plain order in sessions.ts, which does not know what the user has seen.)
import { isUnseen, type SeenMarks } from "./seen.ts";
import { sortByRank, type SessionView } from "./sessions.ts";

export const PICKER_ORDER = ["waiting", "error", "idle-unseen", "running", "started", "idle", "discovered", "ended"] as const;
export type AttentionRank = (typeof PICKER_ORDER)[number];

export function rankOf(session: SessionView, seen: SeenMarks): AttentionRank {
  return session.status === "idle" && isUnseen(session, seen) ? "idle-unseen" : session.status;
}

export function sortForPicker(sessions: readonly SessionView[], seen: SeenMarks): SessionView[] {
  return sortByRank(sessions, (session) => PICKER_ORDER.indexOf(rankOf(session, seen)));
}

/**
 * The session `next` jumps to: the most urgent rank that has any session; among equals, the one after the session
 * `next` chose last time (cycling), else the first. Ended sessions are never a destination.
 */
export function chooseNext(sessions: readonly SessionView[], seen: SeenMarks, previous: string | undefined): SessionView | undefined {
  const candidates = sortForPicker(sessions, seen).filter((session) => session.status !== "ended" && session.status !== "discovered");
  const first = candidates[0];
  if (!first) return undefined;
  const equals = candidates.filter((session) => rankOf(session, seen) === rankOf(first, seen));
  const at = equals.findIndex((session) => session.id === previous);
  return equals[(at + 1) % equals.length];
}
