// Which session a query names when hosts are configured: `HOST:query` asks that host only; a plain query is this
// machine's first (findSession), and only a query nothing here answers is looked for on the hosts.
import { ambiguous, directoryTier, notFound } from "../fleet/queries.ts";
import { resolveQuery, type QueryResult } from "../fleet/sessions.ts";
import type { HostEntry } from "./config.ts";
import { hostsOf, type HostsContext } from "./everywhere.ts";
import { readRemoteSessions, type HostReport, type HostedSession } from "./remote.ts";
import { quoted } from "../core/terminal-text.ts";

export type RemoteFind =
  | { ok: true; host: HostEntry; session: HostedSession }
  | ReturnType<typeof notFound>
  | ReturnType<typeof ambiguous>
  | { ok: false; reason: "unreachable"; detail: string; reports: readonly HostReport[] };

/** `HOST:rest` when HOST is a configured host's name (canonical ids start with `fleet:`, never a host name of ours). */
export function splitHostQuery(query: string, hosts: readonly HostEntry[]): { host: HostEntry; query: string } | undefined {
  const colon = query.indexOf(":");
  if (colon <= 0) return undefined;
  const host = hosts.find((entry) => entry.name === query.slice(0, colon));
  return host ? { host, query: query.slice(colon + 1) } : undefined;
}

/** Live rows first: a directory shared with an ended session is not ambiguous (as findSession). */
function resolveLiveFirst(rows: readonly HostedSession[], query: string): QueryResult {
  const tiers = [directoryTier(query)];
  const live = resolveQuery(
    rows.filter((row) => row.status !== "ended"),
    query,
    tiers,
  );
  return live.kind === "none" ? resolveQuery(rows, query, tiers) : live;
}

/** Find `query` among the hosts' sessions (`only`: one host's). */
export async function findOnHosts(context: HostsContext, query: string, only?: HostEntry): Promise<RemoteFind> {
  const { hosts, remote } = hostsOf(context);
  const asked = only ? [only] : hosts;
  const reads = await Promise.all(asked.map((host) => readRemoteSessions(host, { all: true }, remote)));
  const rows = reads.flatMap((read) => read.sessions);
  const found = resolveLiveFirst(rows, query);
  if (found.kind === "match") {
    const row = found.session as HostedSession;
    const host = asked.find((entry) => entry.name === row.host) as HostEntry;
    return { ok: true, host, session: row };
  }
  if (found.kind === "ambiguous")
    return ambiguous(
      query,
      found.candidates.map((row) => ({ ...row, short_id: `${(row as HostedSession).host}:${row.short_id}` })),
    );
  const missing = reads.filter((read) => read.report.state !== "ok").map((read) => read.report);
  if (missing.length > 0)
    return {
      ok: false,
      reason: "unreachable",
      detail: `no session matches ${quoted(query)} on the hosts that answered; not read: ${missing.map((report) => `${report.host} (${report.detail})`).join(", ")}`,
      reports: missing,
    };
  return notFound(query);
}
