import type { Failure } from "../errors.ts";
import { loadFleet, resolveQuery, type SessionView } from "../sessions.ts";
import type { CliContext } from "./context.ts";

export type ShowResult = { ok: true; session: SessionView } | Failure;

export async function showSession(context: CliContext, query: string): Promise<ShowResult> {
  const fleet = await loadFleet({ stateDir: context.stateDir, processes: context.processes, listProcesses: context.listProcesses, now: context.now });
  if (fleet.problem) return { ok: false, reason: "state-dir", detail: fleet.problem };
  const found = resolveQuery(fleet.sessions, query);
  if (found.kind === "none") return { ok: false, reason: "not-found", detail: `no session matches ${JSON.stringify(query)}` };
  if (found.kind === "ambiguous") {
    return {
      ok: false,
      reason: "ambiguous",
      detail: `${found.candidates.length} sessions match ${JSON.stringify(query)}; use a longer id`,
      candidates: found.candidates,
    };
  }
  return { ok: true, session: found.session };
}
