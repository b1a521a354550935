// Is the process behind a record still the one that wrote it? A record whose process is gone, or whose PID now
// belongs to a later process (different start token), is stale: shown as ended, never as running.
import { startTokenOf, type ProcessSource } from "./proc.ts";
import type { SessionRecord } from "./schema.ts";

/** An unresolved placeholder has no process to check; it counts as stale once it has been quiet this long. */
export const UNRESOLVED_QUIET_MS = 12 * 60 * 60 * 1000;

export type Liveness = { state: "alive" } | { state: "unknown" } | { state: "stale"; reason: string };

/**
 * Can this record be live now, or at any later time while it is unchanged? False only when that is certain: it ended,
 * its placeholder has been quiet past the bound (time only adds to that), or the process it names by PID and start
 * token is gone or is another (a later process never has that token). `startTokenOf` gives the start token of the
 * process running with a PID now; undefined where processes cannot be looked up this way (then only ended is certain).
 */
export function mayBeLive(
  record: Pick<SessionRecord, "status" | "pid" | "process_start" | "updated_at">,
  startTokenOf: ((pid: number) => string | undefined) | undefined,
  now: number,
): boolean {
  if (record.status === "ended") return false;
  if (record.pid === null) return now - Date.parse(record.updated_at) <= UNRESOLVED_QUIET_MS;
  if (record.process_start === null || startTokenOf === undefined) return true;
  return startTokenOf(record.pid) === record.process_start;
}

export async function checkLiveness(
  record: Pick<SessionRecord, "pid" | "process_start" | "updated_at">,
  processes: ProcessSource,
  now: number = Date.now(),
): Promise<Liveness> {
  if (record.pid === null) {
    return now - Date.parse(record.updated_at) > UNRESOLVED_QUIET_MS
      ? { state: "stale", reason: "unresolved and quiet for 12 hours" }
      : { state: "unknown" };
  }
  const token = await startTokenOf(processes, record.pid);
  if (token === undefined) return { state: "stale", reason: `process ${record.pid} is gone` };
  if (record.process_start !== null && token !== record.process_start) {
    return { state: "stale", reason: `PID ${record.pid} now belongs to another process` };
  }
  return { state: "alive" };
}
