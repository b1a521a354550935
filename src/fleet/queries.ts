// The questions users ask of the fleet, answered once for every adapter: the CLI verbs, the picker, `next`, the
// status line and the MCP server all call these and only translate the answers (text, JSON, exit codes, tool results).
import type { Candidate, Failure } from "../core/errors.ts";
import type { RecordListing } from "../store/records.ts";
import { ATTENTION_ORDER, needsAttention, rankOf, type AttentionRank } from "./attention.ts";
import { repoNameOf } from "./repo.ts";
import { loadFleet, resolveQuery, type Fleet, type FleetContext } from "./sessions.ts";
import type { EffectiveRecord } from "./queued.ts";
import type { SeenMarks } from "./seen.ts";
import type { SessionView } from "./view.ts";
import { quoted } from "../core/terminal-text.ts";

export type { FleetContext };

/** `live`: the caller shows live sessions only (ended and stale records need not be read: loadFleet). */
const load = (context: FleetContext, discover: boolean, live = false): Promise<Fleet> => loadFleet(context, { discover, live });

export interface ListResult {
  readonly sessions: SessionView[];
  readonly invalid: RecordListing["invalid"];
  /** What the user has looked at: the attention rank of each row depends on it. */
  readonly seen?: SeenMarks;
  readonly problem?: string;
}

/** Sessions sorted by attention. Without `all`, ended and stale sessions are left out. */
export async function listSessions(context: FleetContext, { all = false }: { all?: boolean } = {}): Promise<ListResult> {
  const fleet = await load(context, true, !all);
  const sessions = all ? fleet.sessions : fleet.sessions.filter((session) => session.status !== "ended");
  return { sessions, invalid: fleet.invalid, seen: fleet.seen, ...(fleet.problem ? { problem: fleet.problem } : {}) };
}

/** Live sessions that need the user (waiting, failed, finished and not yet seen), most urgent first. */
export async function sessionsNeedingAttention(context: FleetContext): Promise<{ sessions: SessionView[]; problem?: string }> {
  const fleet = await load(context, false, true);
  if (fleet.problem) return { sessions: [], problem: fleet.problem };
  return { sessions: fleet.sessions.filter((session) => needsAttention(session, fleet.seen)) };
}

export type FindResult =
  | { ok: true; session: SessionView; record: EffectiveRecord | undefined }
  | Extract<Failure, { reason: "not-found" | "state-dir" }>
  | { ok: false; reason: "ambiguous"; detail: string; candidates: readonly SessionView[] };

export const notFound = (query: string) => ({ ok: false, reason: "not-found", detail: `no session matches ${quoted(query)}` }) as const;

export function ambiguous(query: string, candidates: readonly SessionView[]) {
  return {
    ok: false,
    reason: "ambiguous",
    detail: `${candidates.length} sessions match ${quoted(query)}; use a longer id`,
    candidates,
  } as const;
}

/** What an ambiguity answer lists about each candidate. */
export function candidateOf(session: SessionView): Candidate {
  return { id: session.id, short_id: session.short_id, harness: session.harness, status: session.status, cwd: session.cwd };
}

/** Directory and repository names as a last query tier: `focus webapp` finds the session working in .../webapp. */
export function directoryTier(query: string): (session: SessionView) => boolean {
  return (session) =>
    session.cwd !== "" && (session.cwd === query || session.cwd.split("/").at(-1) === query || repoNameOf(session.cwd) === query);
}

/**
 * Resolve what a user typed to one session: canonical id, PID, short-id prefix, the harness's session id prefix, then
 * a directory or repository name. Live sessions first (a directory shared with an ended session is not ambiguous).
 * Records first, without process discovery (a `ps` run): only a query no record answers looks at processes without
 * records, to say they cannot be focused rather than that nothing matches.
 */
export async function findSession(context: FleetContext, query: string): Promise<FindResult> {
  const tiers = [directoryTier(query)];
  const resolve = (sessions: readonly SessionView[]) => {
    const found = resolveQuery(
      sessions.filter((session) => session.status !== "ended"),
      query,
      tiers,
    );
    return found.kind === "none" ? resolveQuery(sessions, query, tiers) : found;
  };
  let fleet = await load(context, false);
  if (fleet.problem) return { ok: false, reason: "state-dir", detail: fleet.problem };
  let found = resolve(fleet.sessions);
  if (found.kind === "none") {
    fleet = await load(context, true);
    found = resolve(fleet.sessions);
  }
  if (found.kind === "none") return notFound(query);
  if (found.kind === "ambiguous") return ambiguous(query, found.candidates);
  return { ok: true, session: found.session, record: fleet.records?.get(found.session.id) };
}

/** `limited`: the sessions counted under `error` whose turn a limit ended (docs/contract.md, "Limits"). */
export type StatusCounts = Record<AttentionRank, number> & { limited: number; total: number };

/** Counts of live sessions by attention rank (ended and stale sessions are not counted); no process discovery. */
export async function statusCounts(context: FleetContext): Promise<StatusCounts | { problem: string }> {
  const fleet = await load(context, false, true);
  if (fleet.problem) return { problem: fleet.problem };
  const counts = Object.fromEntries(ATTENTION_ORDER.map((rank) => [rank, 0])) as Record<AttentionRank, number>;
  const live = fleet.sessions.filter((session) => session.status !== "ended");
  for (const session of live) counts[rankOf(session, fleet.seen)]++;
  const limited = live.filter((session) => session.status === "error" && session.limit !== null).length;
  return { ...counts, limited, total: live.length };
}
