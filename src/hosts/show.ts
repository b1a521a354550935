// One session on a host, as the host itself resolves and shows it: `tongs-agents show --json --local -- QUERY` run
// there through the one remote runner (quoted, bounded), the answer checked like a listed row and tagged with the host
// that was asked. The host's own "not found" and "ambiguous" answers are checked too, and named with the host.
import * as z from "zod/mini";
import type { Candidate } from "../core/errors.ts";
import type { HostEntry } from "./config.ts";
import { readRemoteJson, rowOf, short, type HostReport, type HostedSession, type RemoteContext } from "./remote.ts";

export type HostShow =
  | { ok: true; session: HostedSession; report: HostReport }
  | { ok: false; reason: "not-found"; detail: string }
  | { ok: false; reason: "ambiguous"; detail: string; candidates: Candidate[] }
  /** No answer (ssh, bound), or one that is not a session: the host is named in the detail. */
  | { ok: false; reason: "unreachable" | "failed"; detail: string; report: HostReport };

const CandidateSchema = z.object({ id: short(512), short_id: short(64), harness: short(64), status: short(32), cwd: short(4096) });
// What the host's `show --json` prints when it does not show a session (src/cli/io.ts `fail`).
const RemoteFailureSchema = z.object({
  reason: z.enum(["not-found", "ambiguous"]),
  detail: short(2048),
  candidates: z.optional(z.array(CandidateSchema).check(z.maxLength(200))),
});

/** Show `query` as the host resolves it (its ids, PIDs, directories). */
export async function showOnHost(host: HostEntry, query: string, context: RemoteContext): Promise<HostShow> {
  const answer = await askHost(host, "show", query, context, (value) => rowOf(host, value));
  return answer.ok ? { ok: true, session: answer.value, report: answer.report } : answer;
}

/**
 * Run `VERB --json --local -- QUERY` on the host (a verb that resolves one session as `show` does) and check its
 * answer with `check` (undefined: it does not fit). The host's not-found and ambiguous answers are checked too.
 */
export async function askHost<T>(
  host: HostEntry,
  verb: "show" | "explain",
  query: string,
  context: RemoteContext,
  check: (value: unknown) => T | undefined,
): Promise<{ ok: true; value: T; report: HostReport } | Exclude<HostShow, { ok: true }>> {
  // `--` ends the options whatever the query holds; every word is quoted by the runner.
  const read = await readRemoteJson(host, [verb, "--json", "--local", "--", query], context);
  if (read.ok) {
    const value = check(read.value);
    return value !== undefined
      ? { ok: true, value, report: read.report }
      : {
          ok: false,
          reason: "failed",
          detail: `${host.name}: answer is not ${verb === "show" ? "a session" : "an explanation"}`,
          report: { ...read.report, state: "failed" },
        };
  }
  const failure = RemoteFailureSchema.safeParse(read.value);
  if (read.value !== undefined && failure.success) {
    const detail = `on ${host.name}: ${failure.data.detail}`;
    if (failure.data.reason === "not-found") return { ok: false, reason: "not-found", detail };
    const candidates = (failure.data.candidates ?? []).map((candidate) => ({
      ...candidate,
      short_id: `${host.name}:${candidate.short_id}`,
    }));
    return { ok: false, reason: "ambiguous", detail, candidates };
  }
  const state = read.report.state === "unreachable" ? "unreachable" : "failed";
  return { ok: false, reason: state, detail: `${host.name}: ${state} (${read.report.detail})`, report: read.report };
}
