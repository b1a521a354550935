// One session as every reader sees it (list, show, the picker, next, status, MCP): a record checked for liveness, or a
// running harness process without a record. Its JSON shape is documented in docs/contract.md.
import type { DiscoveredProcess } from "./discovery.ts";
import { findHarness } from "../harnesses/registry.ts";
import { processInstanceId, shortId } from "../core/identity.ts";
import type { LifecycleStatus, SessionRecord, Terminal } from "../core/schema.ts";
import { NO_USAGE, type UsageView } from "./usage.ts";

export type ViewStatus = LifecycleStatus | "discovered";

/**
 * What said the state shown: a harness's `hook`; what the harness `stated` in its own files (its transcript, its
 * session state); an extension's `bridge` (Pi, OpenCode); the `liveness` check (the process is gone, or it runs
 * without a record); a configured SSH `host` (docs/contract.md, "--json output").
 */
export const STATE_SOURCES = ["hook", "stated", "bridge", "liveness", "host"] as const;
export type StateSource = (typeof STATE_SOURCES)[number];

/** A session as readers show it: its state, and what it states about itself (usage.ts; docs/limits.md). */
export interface SessionView extends UsageView {
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
  readonly state_source: StateSource;
  /** Seconds since the state shown was said (the liveness check: now). */
  readonly state_age_s: number;
}

/** The source of the record's current state: the event that began the last run of history entries in that state. */
function recordedSource(record: SessionRecord): StateSource {
  const history = record.history ?? [];
  let first: string | undefined;
  for (let index = history.length - 1; index >= 0 && history[index]?.status === record.status; index--) first = history[index]?.source;
  // A record written before history was kept: an emitter's events come through its bridge, anything else by hook.
  const source = first ?? (record.identity === "emitter" ? "bridge" : "hook");
  return source === "transcript" || source === "session-state" ? "stated" : source === "bridge" ? "bridge" : "hook";
}

/** Whole seconds from `since` to `now` (never negative: a clock stepped back). */
export function ageSeconds(since: string, now: number): number {
  const at = Date.parse(since);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.floor((now - at) / 1000));
}

export function viewOfRecord(
  record: SessionRecord,
  stale: { stale: boolean; reason: string },
  now: number,
  usage: UsageView = NO_USAGE,
): SessionView {
  return {
    ...usage,
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
    state_source: stale.stale ? "liveness" : recordedSource(record),
    state_age_s: stale.stale ? 0 : ageSeconds(record.status_changed_at, now),
  };
}

export function viewOfDiscovered(found: DiscoveredProcess, nowIso: string): SessionView {
  const harnessName = findHarness(found.harness)?.displayName ?? found.harness;
  const terminal: Terminal = { env: {} };
  if (found.tty !== undefined) terminal.tty = found.tty;
  return {
    ...NO_USAGE,
    id: `discovered:${found.harness}:${found.pid}`,
    short_id: `p${found.pid}`,
    harness: found.harness,
    harness_name: harnessName,
    session_id: "",
    // The process as discovered (PID and start): focus refuses a PID that another process has taken since.
    instance_id: processInstanceId(found.pid, found.startToken),
    identity: "discovered",
    status: "discovered",
    recorded_status: "discovered",
    stale: false,
    stale_reason: "",
    pid: found.pid,
    cwd: found.cwd ?? "",
    detail: found.sharedDaemonRunning
      ? `running; its hooks may report through the ${harnessName} shared daemon`
      : "running, no hook events yet",
    tool: "",
    last_event: "",
    created_at: nowIso,
    updated_at: nowIso,
    status_changed_at: nowIso,
    launch_id: "",
    profile_id: "",
    terminal,
    state_source: "liveness",
    state_age_s: 0,
  };
}
