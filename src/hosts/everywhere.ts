// One view across this machine and the configured hosts: the local fleet and every host read at once, each host under
// the same short bound, so a slow or unreachable host never holds up the local rows and is reported, never dropped.
import { cycleNext, rankOf, sortByAttention, ATTENTION_ORDER } from "../fleet/attention.ts";
import { loadFleet } from "../fleet/sessions.ts";
import { listSessions, statusCounts, type FleetContext, type ListResult, type StatusCounts } from "../fleet/queries.ts";
import type { Runner } from "../core/exec.ts";
import { loadHosts, type HostEntry } from "./config.ts";
import { readRemoteCounts, readRemoteSessions, type HostReport, type HostedSession, type RemoteContext } from "./remote.ts";
import { controlDir } from "./ssh.ts";

/** How long one host may take, connection included (a status line runs every few seconds). */
export const HOST_TIMEOUT_MS = 3000;

export interface HostsContext extends FleetContext {
  readonly env: NodeJS.ProcessEnv;
  /** The ssh runner (tests inject a fake); default: the process runner. */
  readonly sshRun?: Runner;
  readonly hostTimeoutMs?: number;
}

export interface Everywhere {
  readonly hosts: readonly HostEntry[];
  readonly remote: RemoteContext;
  /** The config file's hosts entry could not be used. */
  readonly problem?: string;
}

/** The configured hosts and how to reach them; `local` (the flag a remote read passes) means none. */
export function hostsOf(context: HostsContext, { local = false }: { local?: boolean } = {}): Everywhere {
  const remote: RemoteContext = {
    // An injected ssh (tests) is the whole transport: no real background connection is started beside it.
    ...(context.sshRun ? { run: context.sshRun, startMaster: () => undefined } : {}),
    env: context.env,
    controlDir: undefined,
    timeoutMs: context.hostTimeoutMs ?? HOST_TIMEOUT_MS,
  };
  if (local) return { hosts: [], remote };
  const loaded = loadHosts(context.env);
  if (loaded.hosts.length === 0) return { hosts: [], remote, ...(loaded.problem ? { problem: loaded.problem } : {}) };
  return { hosts: loaded.hosts, remote: { ...remote, controlDir: controlDir(context.env, context.stateDir) } };
}

export interface ListEverywhere extends Omit<ListResult, "sessions"> {
  readonly sessions: HostedSession[];
  readonly hosts: readonly HostReport[];
  readonly hostsProblem?: string;
}

/** Every session here and on the hosts, sorted by attention (each host ranks its own: it holds its seen marks). */
export async function listEverywhere(
  context: HostsContext,
  { all = false, local = false }: { all?: boolean; local?: boolean } = {},
): Promise<ListEverywhere> {
  const { hosts, remote, problem } = hostsOf(context, { local });
  const [here, ...there] = await Promise.all([
    listSessions(context, { all }),
    ...hosts.map((host) => readRemoteSessions(host, { all }, remote)),
  ]);
  const seen = here.seen ?? {};
  const localRows: HostedSession[] = here.sessions.map((session) => ({ ...session, host: "", attention: rankOf(session, seen) }));
  const sessions = sortMerged([...localRows, ...there.flatMap((read) => read.sessions)]);
  return {
    sessions,
    invalid: here.invalid,
    hosts: there.map((read) => read.report),
    ...(here.problem ? { problem: here.problem } : {}),
    ...(problem ? { hostsProblem: problem } : {}),
  };
}

/** The attention order across machines: by each row's own rank, then the most recent change. */
function sortMerged(rows: readonly HostedSession[]): HostedSession[] {
  // sortByAttention ranks by status and seen marks; each row already carries the rank its own machine gave it.
  const byRank = ATTENTION_ORDER.map((rank) => rows.filter((row) => row.attention === rank));
  return byRank.flatMap((group) => sortByAttention(group, {}));
}

export interface CountsEverywhere {
  readonly counts: StatusCounts;
  readonly hosts: readonly HostReport[];
}

/** Counts here plus every reachable host's; unreachable hosts are reported beside the counts. */
export async function countsEverywhere(
  context: HostsContext,
  { local = false }: { local?: boolean } = {},
): Promise<CountsEverywhere | { problem: string }> {
  const { hosts, remote } = hostsOf(context, { local });
  const [here, ...there] = await Promise.all([statusCounts(context), ...hosts.map((host) => readRemoteCounts(host, remote))]);
  if ("problem" in here) return here;
  const counts = { ...here };
  for (const read of there) {
    if (!read.counts) continue;
    for (const key of [...ATTENTION_ORDER, "limited", "total"] as const) counts[key] += read.counts[key];
  }
  return { counts, hosts: there.map((read) => read.report) };
}

/** How `next` remembers a row across runs: the id here, the host and the id for a host's row. */
export const nextKey = (row: HostedSession): string => (row.host === "" ? row.id : `${row.host}\t${row.id}`);

export interface NextEverywhere {
  readonly target?: HostedSession;
  readonly hosts: readonly HostReport[];
  readonly problem?: string;
}

/** The session `next` goes to, here or on a host (no discovery here, as this machine's `next`). */
export async function nextEverywhere(context: HostsContext, previous: string | undefined): Promise<NextEverywhere> {
  const { hosts, remote } = hostsOf(context);
  const [fleet, ...there] = await Promise.all([
    loadFleet(context, { discover: false }),
    ...hosts.map((host) => readRemoteSessions(host, { all: false }, remote)),
  ]);
  const reports = there.map((read) => read.report);
  if (fleet.problem) return { hosts: reports, problem: fleet.problem };
  const localRows: HostedSession[] = fleet.sessions.map((session) => ({ ...session, host: "", attention: rankOf(session, fleet.seen) }));
  const rows = sortMerged([...localRows, ...there.flatMap((read) => read.sessions)]);
  const target = cycleNext(rows, (row) => row.attention, nextKey, previous);
  return { ...(target ? { target } : {}), hosts: reports };
}
