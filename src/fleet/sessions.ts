// The fleet as users see it: records checked for liveness, plus discovered processes, sorted by who needs attention.
// Read by the queries (queries.ts) that list, show, status, focus, next, the picker and the MCP server answer from.
import { readdirSync } from "node:fs";
import type { Clock } from "../core/clock.ts";
import { digestOf } from "../core/identity.ts";
import { startTokenOf, type ProcessSource } from "../core/proc.ts";
import { ensureDrainer } from "../store/drainer-process.ts";
import { stateDirsIfPresent } from "../store/paths.ts";
import { openRecordCache, readSessionsIndex } from "../store/record-cache.ts";
import type { SessionsWatch } from "../store/sessions-watch.ts";
import { listRecords, readRecord, recordPath, type RecordListing } from "../store/records.ts";
import { sortByAttention } from "./attention.ts";
import type { ListProcesses } from "../core/process-table.ts";
import { checkLiveness } from "../core/liveness.ts";
import { readSeen, type SeenMarks } from "./seen.ts";
import { applyStatedStates, type StatedContext } from "./stated.ts";
import { statuslineFactsReader } from "../store/statusline-facts.ts";
import { usageOf } from "./usage.ts";
import { viewOfDiscovered, viewOfRecord, type SessionView } from "./view.ts";
import type { EffectiveRecord } from "./queued.ts";
import { sharesProcess } from "./process-key.ts";

/** What reading the fleet may use of the world. */
export interface FleetContext {
  readonly stateDir: string;
  readonly processes: ProcessSource;
  readonly listProcesses?: ListProcesses;
  /** Defaults to the system clock. */
  readonly now?: Clock;
  /** A watch on the sessions dir that a long-lived process (the keypress server) keeps: fewer `lstat`s per listing. */
  readonly watch?: SessionsWatch;
  /** The caller's environment (its config dir decides the declared agents discovery looks for); this process's by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** Called with a turn outcome the harness stated and a reader just wrote (stated.ts): notifications start here. */
  readonly onStated?: StatedContext["onApplied"];
}

export interface Fleet {
  readonly sessions: SessionView[];
  /** The records behind `sessions`, by canonical id, as shown: queued events applied (queued.ts). */
  readonly records?: ReadonlyMap<string, EffectiveRecord>;
  readonly invalid: RecordListing["invalid"];
  /** What the user has looked at (focus marks), which the attention order used. */
  readonly seen: SeenMarks;
  /** Set when the state dir cannot be used (symlink, foreign owner): the listing is then empty. */
  readonly problem?: string;
}

/**
 * Every session, checked and sorted; ended and stale ones included (callers filter). `discover` (default true) adds
 * running harness processes that have no record. `live`: the caller shows only live sessions; ended and stale records
 * may then be left out (and, while the drainer keeps the sessions index, are never read: liveRecords).
 */
export async function loadFleet(
  { stateDir, processes, listProcesses, now: clock = Date.now, env, watch, onStated }: FleetContext,
  { discover = true, live: liveOnly = false }: { discover?: boolean; live?: boolean } = {},
): Promise<Fleet> {
  // Readers never create the state dir: one that does not exist yet simply holds no records.
  const dirs = stateDirsIfPresent(stateDir);
  if (!dirs.ok && dirs.reason !== "missing") return { sessions: [], invalid: [], seen: {}, problem: dirs.detail };
  // Hook events queued with no drainer running (one was killed, a hook could not start one) are applied from now on.
  const draining = ensureDrainer(stateDir, { env: env ?? process.env });
  // In the keypress server, a watch on the sessions dir spares the lstat of records that did not change (once it has
  // seen every change made before this listing).
  const vouched = watch?.dir === dirs.sessionsDir ? await watch.forListing() : undefined;
  const now = clock();
  // While a drainer runs, a cache saved for the whole quiet directory is used as it is (record-cache.ts).
  const validated = openRecordCache(stateDir, {
    ...(vouched ? { watch: vouched } : {}),
    sessionsDir: dirs.sessionsDir,
    wholeDir: draining,
  });
  const fromIndex = liveOnly && draining ? await liveRecords(stateDir, dirs.sessionsDir, processes, now) : undefined;
  const [listing, discovered] = await Promise.all([
    Promise.resolve(fromIndex ?? listRecords(dirs.sessionsDir, now, validated)),
    // Loaded only when used: discovery is not needed by status, next or the picker's first screen.
    discover
      ? import("./discovery.ts").then(({ discoverProcesses }) =>
          discoverProcesses({ processes, ...(listProcesses ? { list: listProcesses } : {}), ...(env ? { env } : {}) }),
        )
      : Promise.resolve([]),
  ]);
  if (!fromIndex) validated.save(listing);
  // What no hook reported but the harness wrote itself (Esc in Claude Code, an API error in Codex, usage): stated.ts.
  const stated = await applyStatedStates(listing.records, {
    stateDir,
    now: clock,
    ...(env ? { env } : {}),
    ...(onStated ? { onApplied: onStated } : {}),
  });
  const records =
    stated.changed.size === 0
      ? listing.records
      : listing.records.map((listed) => ({ ...listed, record: stated.changed.get(listed.digest) ?? listed.record }));
  // Many records usually share a few processes: look each PID up once. Many distinct PIDs (thousands of records):
  // one look at /proc says which are gone, without a failed open each.
  const byPid = new Map<number, Promise<string | undefined>>();
  const running = runningPids(records);
  const cached: ProcessSource = {
    ...processes,
    startToken: (pid) =>
      byPid.get(pid) ?? byPid.set(pid, running && !running.has(pid) ? Promise.resolve(undefined) : startTokenOf(processes, pid)).get(pid)!,
  };
  // Events still queued for a record (its lock was busy) are part of what it says: applied in memory, no lock taken.
  // The state machine is loaded only when something is queued or a process has two live records (rare): `status` runs
  // every few seconds.
  const effective: EffectiveRecord[] =
    listing.spools.length > 0 || sharesProcess(records)
      ? (await import("./queued.ts")).effectiveRecords(dirs.sessionsDir, { ...listing, records }, now)
      : records.map(({ digest, record }) => ({ digest, record, unwritten: 0 }));
  const statuslineFacts = statuslineFactsReader(stateDir);
  const sessions = await Promise.all(
    effective.map(async ({ digest, record }) => {
      const liveness = record.status === "ended" ? { state: "alive" as const } : await checkLiveness(record, cached, now);
      const usage = usageOf(record, { transcript: stated.facts.get(digest), statusline: statuslineFacts(record) }, now);
      return viewOfRecord(
        record,
        liveness.state === "stale" ? { stale: true, reason: liveness.reason } : { stale: false, reason: "" },
        now,
        usage,
      );
    }),
  );
  const live = sessions.filter((session) => !session.stale && session.status !== "ended");
  const claimed = new Set(live.map((session) => session.pid));
  const nowIso = new Date(now).toISOString();
  for (const found of discovered) if (!claimed.has(found.pid)) sessions.push(viewOfDiscovered(found, nowIso));
  const byId = new Map(effective.map((entry) => [entry.record.canonical_id, entry]));
  const seen = readSeen(stateDir);
  return { sessions: sortByAttention(sessions, seen), records: byId, invalid: listing.invalid, seen };
}

export type QueryResult = { kind: "match"; session: SessionView } | { kind: "none" } | { kind: "ambiguous"; candidates: SessionView[] };

/**
 * Resolve what a user typed: canonical id, PID, short-id prefix, native session id prefix; `extra` adds tiers (focus
 * adds directory and repo names). Tiers are tried in order; a tier with several matches is ambiguous, never a guess.
 */
export function resolveQuery(
  sessions: readonly SessionView[],
  query: string,
  extra: readonly ((session: SessionView) => boolean)[] = [],
): QueryResult {
  const trimmed = query.trim();
  if (trimmed === "") return { kind: "none" };
  const lower = trimmed.toLowerCase();
  const tiers: ((session: SessionView) => boolean)[] = [
    (session) => session.id === trimmed,
    (session) => /^\d+$/.test(trimmed) && session.pid === Number(trimmed),
    (session) =>
      (digestOf(session.id) ?? session.short_id).startsWith(lower) || (session.id.startsWith("fleet:") && session.id.startsWith(trimmed)),
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

/** Past this many distinct PIDs, listing /proc once costs less than a failed open per process that is gone. */
const MANY_PIDS = 64;

/** The PIDs running now (Linux), when the records name many; undefined otherwise (each is looked up). */
function runningPids(records: readonly { record: { pid: number | null } }[]): ReadonlySet<number> | undefined {
  if (process.platform !== "linux") return undefined;
  const pids = new Set(records.map(({ record }) => record.pid));
  if (pids.size <= MANY_PIDS) return undefined;
  try {
    return new Set(
      readdirSync("/proc")
        .filter((name) => /^\d+$/.test(name))
        .map(Number),
    );
  } catch {
    return undefined;
  }
}

/**
 * The live records only, from the sessions index (record-cache.ts, readSessionsIndex): each record's row says whether
 * it ended and, with its PID and process start, whether it is stale; only the others' files are read and validated.
 * Undefined when the index does not stand for the directory as it is (the caller lists every record).
 */
async function liveRecords(
  stateDir: string,
  sessionsDir: string,
  processes: ProcessSource,
  now: number,
): Promise<RecordListing | undefined> {
  const index = readSessionsIndex(stateDir, sessionsDir);
  if (!index) return undefined;
  const running = runningPids(index.rows.map((row) => ({ record: row })));
  const source: ProcessSource = running
    ? { ...processes, startToken: (pid) => (running.has(pid) ? startTokenOf(processes, pid) : Promise.resolve(undefined)) }
    : processes;
  const listing: RecordListing = { records: [], invalid: [], spools: [...index.spools] };
  for (const row of index.rows) {
    if (row.status === "ended" || (await checkLiveness(row, source, now)).state === "stale") continue;
    const read = readRecord(recordPath(sessionsDir, row.digest), now);
    if (read.kind === "record") listing.records.push({ digest: row.digest, record: read.record });
    else if (read.kind === "invalid") listing.invalid.push({ digest: row.digest, reason: read.reason, detail: read.detail });
  }
  return listing;
}
