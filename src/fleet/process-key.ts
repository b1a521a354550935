// Which records belong to one harness process that runs one session at a time (docs/contract.md, "Session switching").
// Apart from queued.ts so that listings can tell, without loading the store's state machine, whether any process has
// more than one live record.
import type { SessionRecord } from "../core/schema.ts";
import { findHarness } from "../harnesses/registry.ts";

/** The process a live record runs in, or undefined when the rule does not apply to it. */
export function liveProcessKey(record: SessionRecord): string | undefined {
  // Placeholders have no process; Codex's shared daemon and an OpenCode process host several sessions at once.
  if (record.status === "ended" || record.identity === "unresolved" || record.terminal.unprovable !== undefined) return undefined;
  if (findHarness(record.harness)?.hostsManySessions === true) return undefined;
  return `${record.harness}\u0000${record.instance_id}`;
}

/** Does any process have more than one live record? */
export function sharesProcess(records: readonly { record: SessionRecord }[]): boolean {
  const seen = new Set<string>();
  for (const { record } of records) {
    const key = liveProcessKey(record);
    if (key === undefined) continue;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}
