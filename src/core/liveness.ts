// Is the process behind a record still the one that wrote it? A record whose process is gone, or whose PID now
// belongs to a later process (different start token), is stale: shown as ended, never as running.
import type { ProcessSource } from "./proc.ts";
import type { SessionRecord } from "./schema.ts";

/** An unresolved placeholder has no process to check; it counts as stale once it has been quiet this long. */
export const UNRESOLVED_QUIET_MS = 12 * 60 * 60 * 1000;

export type Liveness = { state: "alive" } | { state: "unknown" } | { state: "stale"; reason: string };

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
  const info = await processes.basics(record.pid);
  if (!info) return { state: "stale", reason: `process ${record.pid} is gone` };
  if (record.process_start !== null && info.startToken !== record.process_start) {
    return { state: "stale", reason: `PID ${record.pid} now belongs to another process` };
  }
  return { state: "alive" };
}
