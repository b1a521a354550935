// The fleet as users see it: records checked for liveness, plus discovered processes, sorted by who needs attention.
// Shared by list, show, prune, focus, the picker and the MCP server. Its JSON shape is documented in docs/contract.md.
import type { DiscoveredProcess, ListProcesses } from "./discovery.ts";
import { findHarness } from "../harnesses/registry.ts";
import { digestOf, shortId } from "../core/identity.ts";
import { checkLiveness } from "./liveness.ts";
import { ensureStateDirs } from "../store/paths.ts";
import type { ProcessSource } from "../core/proc.ts";
import { openRecordCache } from "../store/record-cache.ts";
import type { LifecycleStatus, SessionRecord, Terminal } from "../core/schema.ts";
import { listRecords, type RecordListing } from "../store/records.ts";
import type { EffectiveRecord } from "./queued.ts";
import { sharesProcess } from "./process-key.ts";

export type ViewStatus = LifecycleStatus | "discovered";

/** Attention order for `list`: who needs the user first. */
export const ATTENTION_ORDER: readonly ViewStatus[] = ["waiting", "error", "idle", "running", "started", "discovered", "ended"];

export interface SessionView {
  /** Canonical id, or `discovered:<harness>:<pid>` for a process without a record. */
  readonly id: string;
  readonly short_id: string;
  readonly harness: string;
  readonly harness_name: string;
  readonly session_id: string;
  readonly instance_id: string;
  readonly identity: SessionRecord["identity"] | "discovered";
  /** What the user should believe: `ended` when the record is stale. */
  readonly status: ViewStatus;
  /** What the last event said. */
  readonly recorded_status: ViewStatus;
  readonly stale: boolean;
  readonly stale_reason: string;
  readonly pid: number | null;
  readonly cwd: string;
  readonly detail: string;
  readonly tool: string;
  readonly last_event: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly status_changed_at: string;
  readonly launch_id: string;
  readonly profile_id: string;
  readonly terminal: Terminal;
}

export function viewOfRecord(record: SessionRecord, stale: { stale: boolean; reason: string }): SessionView {
  return {
    id: record.canonical_id,
    short_id: shortId(record.canonical_id),
    harness: record.harness,
    harness_name: findHarness(record.harness)?.displayName ?? record.harness,
    session_id: record.session_id,
    instance_id: record.instance_id,
    identity: record.identity,
    status: stale.stale ? "ended" : record.status,
    recorded_status: record.status,
    stale: stale.stale,
    stale_reason: stale.reason,
    pid: record.pid,
    cwd: record.cwd,
    detail: record.detail,
    tool: record.tool,
    last_event: record.last_event,
    created_at: record.created_at,
    updated_at: record.updated_at,
    status_changed_at: record.status_changed_at,
    launch_id: record.launch?.launch_id ?? "",
    profile_id: record.launch?.profile_id ?? "",
    terminal: record.terminal,
  };
}

export function viewOfDiscovered(found: DiscoveredProcess, nowIso: string): SessionView {
  const harnessName = findHarness(found.harness)?.displayName ?? found.harness;
  const terminal: Terminal = { env: {} };
  if (found.tty !== undefined) terminal.tty = found.tty;
  return {
    id: `discovered:${found.harness}:${found.pid}`,
    short_id: `p${found.pid}`,
    harness: found.harness,
    harness_name: harnessName,
    session_id: "",
    instance_id: "",
    identity: "discovered",
    status: "discovered",
    recorded_status: "discovered",
    stale: false,
    stale_reason: "",
    pid: found.pid,
    cwd: found.cwd ?? "",
    detail: found.sharedDaemonRunning ? `running; its hooks may report through the ${harnessName} shared daemon` : "running, no hook events yet",
    tool: "",
    last_event: "",
    created_at: nowIso,
    updated_at: nowIso,
    status_changed_at: nowIso,
    launch_id: "",
    profile_id: "",
    terminal,
  };
}

/**
 * Sorted by `rank` (lower first), then the most recent change first, then id for a stable order. Each key is computed
 * once per session, not once per comparison, and ids compare by code unit: with 500 sessions, `Date.parse` and
 * `localeCompare` inside the comparator cost more than reading the records.
 */
export function sortByRank<T extends SessionView>(sessions: readonly T[], rank: (session: T) => number): T[] {
  return sessions
    .map((session) => ({ session, rank: rank(session), changed: Date.parse(session.status_changed_at) }))
    .sort((a, b) => a.rank - b.rank || b.changed - a.changed || (a.session.id < b.session.id ? -1 : a.session.id > b.session.id ? 1 : 0))
    .map((entry) => entry.session);
}

export interface FleetOptions {
  readonly stateDir: string;
  readonly processes: ProcessSource;
  /** Include running harness processes that have no record (default true). */
  readonly discover?: boolean;
  readonly listProcesses?: ListProcesses;
  readonly now?: number;
}

export interface Fleet {
  readonly sessions: SessionView[];
  /** The records behind `sessions`, by canonical id, as shown: queued events applied (queued.ts). */
  readonly records?: ReadonlyMap<string, EffectiveRecord>;
  readonly invalid: RecordListing["invalid"];
  /** Set when the state dir cannot be used (symlink, foreign owner): the listing is then empty. */
  readonly problem?: string;
}

/** Every session, checked and sorted; ended and stale ones included (callers filter). */
export async function loadFleet({ stateDir, processes, discover = true, listProcesses, now = Date.now() }: FleetOptions): Promise<Fleet> {
  const dirs = ensureStateDirs(stateDir);
  if (!dirs.ok) return { sessions: [], invalid: [], problem: dirs.detail };
  const validated = openRecordCache(stateDir);
  const [listing, discovered] = await Promise.all([
    Promise.resolve(listRecords(dirs.sessionsDir, now, validated)),
    // Loaded only when used: ps-list is not needed by status, next or the picker's first screen.
    discover ? import("./discovery.ts").then(({ discoverProcesses }) => discoverProcesses({ processes, ...(listProcesses ? { list: listProcesses } : {}) })) : Promise.resolve([]),
  ]);
  validated.save();
  // Many records usually share a few processes: look each PID up once.
  const byPid = new Map<number, ReturnType<ProcessSource["basics"]>>();
  const cached: ProcessSource = { basics: (pid) => byPid.get(pid) ?? byPid.set(pid, processes.basics(pid)).get(pid)!, argv: (pid) => processes.argv(pid) };
  // Events still queued for a record (its lock was busy) are part of what it says: applied in memory, no lock taken.
  // The state machine is loaded only when something is queued or a process has two live records (rare): `status` runs
  // every few seconds.
  const effective: EffectiveRecord[] =
    listing.spools.length > 0 || sharesProcess(listing.records)
      ? (await import("./queued.ts")).effectiveRecords(dirs.sessionsDir, listing, now)
      : listing.records.map(({ digest, record }) => ({ digest, record, unwritten: 0 }));
  const sessions = await Promise.all(
    effective.map(async ({ record }) => {
      const liveness = record.status === "ended" ? { state: "alive" as const } : await checkLiveness(record, cached, now);
      return viewOfRecord(record, liveness.state === "stale" ? { stale: true, reason: liveness.reason } : { stale: false, reason: "" });
    }),
  );
  const live = sessions.filter((session) => !session.stale && session.status !== "ended");
  const claimed = new Set(live.map((session) => session.pid));
  const nowIso = new Date(now).toISOString();
  for (const found of discovered) if (!claimed.has(found.pid)) sessions.push(viewOfDiscovered(found, nowIso));
  const records = new Map(effective.map((entry) => [entry.record.canonical_id, entry]));
  return { sessions: sortByRank(sessions, (session) => ATTENTION_ORDER.indexOf(session.status)), records, invalid: listing.invalid };
}

export type QueryResult = { kind: "match"; session: SessionView } | { kind: "none" } | { kind: "ambiguous"; candidates: SessionView[] };

/**
 * Resolve what a user typed: canonical id, PID, short-id prefix, native session id prefix; `extra` adds tiers (focus
 * adds directory and repo names). Tiers are tried in order; a tier with several matches is ambiguous, never a guess.
 */
export function resolveQuery(sessions: readonly SessionView[], query: string, extra: readonly ((session: SessionView) => boolean)[] = []): QueryResult {
  const trimmed = query.trim();
  if (trimmed === "") return { kind: "none" };
  const lower = trimmed.toLowerCase();
  const tiers: ((session: SessionView) => boolean)[] = [
    (session) => session.id === trimmed,
    (session) => /^\d+$/.test(trimmed) && session.pid === Number(trimmed),
    (session) => (digestOf(session.id) ?? session.short_id).startsWith(lower) || (session.id.startsWith("fleet:") && session.id.startsWith(trimmed)),
    (session) => session.session_id !== "" && session.session_id.startsWith(trimmed),
    ...extra,
  ];
  for (const tier of tiers) {
    const matches = sessions.filter(tier);
    if (matches.length === 1) return { kind: "match", session: matches[0] as SessionView };
    if (matches.length > 1) return { kind: "ambiguous", candidates: matches };
  }
  return { kind: "none" };
}
