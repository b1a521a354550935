// `show`, `explain` and `wait` for a session on an SSH host (docs/hosts.md): `HOST:query` asks that host; a plain query that
// nothing here matches is looked for on the hosts, as focus does. The host resolves and shows the session itself
// (src/hosts/show.ts); this file only translates results into output and exit codes, as the local verbs do.
import { EXIT_CODES } from "../core/errors.ts";
import type { WaitTarget } from "../fleet/wait.ts";
import type { HostEntry } from "../hosts/config.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { explainOnHost } from "../hosts/explain.ts";
import { findOnHosts } from "../hosts/find.ts";
import type { HostedSession } from "../hosts/remote.ts";
import { showOnHost, type HostShow } from "../hosts/show.ts";
import { waitOnHost } from "../hosts/wait.ts";
import type { CliContext } from "./context.ts";
import { formatExplanation } from "./format-explain.ts";
import { formatDetails } from "./format.ts";
import { fail, type VerbIo } from "./io.ts";

/** A query that is not this machine's: `only` when it named a host, `localMiss` when this machine was asked first. */
export interface Lookup {
  readonly query: string;
  readonly only?: HostEntry;
  readonly localMiss?: { ok: false; reason: "not-found"; detail: string };
}

/** Where the query leads: one host's session, or the exit code already printed. */
async function locate(
  context: CliContext,
  io: VerbIo,
  json: boolean,
  { query, only, localMiss }: Lookup,
): Promise<{ host: HostEntry; query: string } | number> {
  // A named host resolves the query itself (its `show` takes what focus takes there).
  if (only) return { host: only, query };
  const found = await findOnHosts(context, query);
  if (found.ok) return { host: found.host, query: found.session.id };
  if (found.reason === "not-found" && localMiss) return fail(localMiss, io, json);
  if (found.reason === "unreachable") {
    const detail = localMiss ? `${localMiss.detail} here; ${found.detail}` : found.detail;
    return fail({ ok: false, reason: "not-found", detail }, io, json);
  }
  return fail(found, io, json);
}

/** Print a failure the host gave (or the failure to reach it). */
function failOnHost(failure: Exclude<HostShow, { ok: true }>, io: VerbIo, json: boolean): number {
  if ("report" in failure) {
    if (json) io.stdout(JSON.stringify({ ok: false, reason: failure.reason, detail: failure.detail, host: failure.report }, null, 2));
    else io.stderr(`tongs-agents: ${failure.detail}`);
    return EXIT_CODES.error;
  }
  return fail(failure, io, json);
}

/** The session as `show` prints it, named by its host. */
export function formatHostDetails(session: HostedSession, destination: string, now: number): string {
  return [
    `host: ${session.host} (${destination})`,
    formatDetails({ ...session, short_id: `${session.host}:${session.short_id}` }, now),
  ].join("\n");
}

export async function showRemote(context: CliContext, io: VerbIo, json: boolean, lookup: Lookup): Promise<number> {
  const target = await locate(context, io, json, lookup);
  if (typeof target === "number") return target;
  const shown = await showOnHost(target.host, target.query, hostsOf(context).remote);
  if (!shown.ok) return failOnHost(shown, io, json);
  io.stdout(json ? JSON.stringify(shown.session, null, 2) : formatHostDetails(shown.session, target.host.destination, context.now()));
  return EXIT_CODES.ok;
}

export async function explainRemote(context: CliContext, io: VerbIo, json: boolean, lookup: Lookup): Promise<number> {
  const target = await locate(context, io, json, lookup);
  if (typeof target === "number") return target;
  const result = await explainOnHost(target.host, target.query, hostsOf(context).remote);
  if (!result.ok) return failOnHost(result, io, json);
  const { explanation } = result;
  const session = { ...explanation.session, short_id: `${explanation.session.host}:${explanation.session.short_id}` };
  io.stdout(
    json
      ? JSON.stringify(explanation, null, 2)
      : [`host: ${target.host.name} (${target.host.destination})\n`, ...formatExplanation({ ...explanation, session }, context.now(), io)],
  );
  return EXIT_CODES.ok;
}

export async function waitRemote(
  context: CliContext,
  io: VerbIo,
  json: boolean,
  lookup: Lookup,
  request: { until: WaitTarget; timeoutMs: number },
): Promise<number> {
  const target = await locate(context, io, json, lookup);
  if (typeof target === "number") return target;
  const result = await waitOnHost(target.host, target.query, request.until, request.timeoutMs, hostsOf(context).remote);
  // A timeout or an end carries the session as last seen; anything else is a failure to find or read it.
  if (!result.ok && !("session" in result)) return failOnHost(result, io, json);
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else if (result.ok)
    io.stdout(
      `${result.host}:${result.session.short_id} ${result.session.status}${result.session.detail ? `: ${result.session.detail}` : ""}`,
    );
  else io.stderr(`tongs-agents: on ${result.host}: ${result.detail}`);
  return result.ok ? EXIT_CODES.ok : EXIT_CODES[result.reason === "timeout" ? "timeout" : "ended"];
}
