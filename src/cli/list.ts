import { loadFleet, type SessionView } from "../sessions.ts";
import type { RecordListing } from "../store.ts";
import type { CliContext } from "./context.ts";

export interface ListResult {
  readonly sessions: SessionView[];
  readonly invalid: RecordListing["invalid"];
  readonly problem?: string;
}

/** Sessions sorted by attention. Without `all`, ended and stale sessions are left out. */
export async function listSessions(context: CliContext, { all = false }: { all?: boolean } = {}): Promise<ListResult> {
  const fleet = await loadFleet({ stateDir: context.stateDir, processes: context.processes, listProcesses: context.listProcesses, now: context.now });
  const sessions = all ? fleet.sessions : fleet.sessions.filter((session) => session.status !== "ended");
  return { sessions, invalid: fleet.invalid, ...(fleet.problem ? { problem: fleet.problem } : {}) };
}
