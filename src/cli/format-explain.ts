// `explain` in words, for a session here or on a host: the state, the waits still open, the last events oldest first.
import { formatAge } from "../core/age.ts";
import { toDisplayLine } from "../core/bounds.ts";
import { shortenHome } from "../core/home.ts";
import type { Explanation } from "../fleet/explain.ts";
import { colorStatus, statusLabel } from "./format.ts";
import type { CliIo } from "./io.ts";

export function formatExplanation(
  { session, pending, entries, unwritten, note }: Explanation,
  now: number,
  io: Pick<CliIo, "color" | "home">,
): string {
  const lines = [`${session.short_id}  ${session.harness}  ${toDisplayLine(shortenHome(session.cwd, io.home))}`];
  lines.push(
    `  ${colorStatus(session.status, statusLabel(session), io.color)}${session.detail ? `: ${toDisplayLine(session.detail)}` : ""}`,
  );
  if (pending.length > 0) {
    lines.push("Open waits (the newest is shown):");
    for (const wait of pending)
      lines.push(
        `  ${wait.kind}${wait.tool ? ` ${toDisplayLine(wait.tool)}` : ""}  ${formatAge(wait.since, now)} ago  ${toDisplayLine(wait.detail)}`,
      );
  }
  if (entries.length > 0) {
    lines.push("Last events, oldest first (source, event, state after it, what changed):");
    const width = Math.max(...entries.map((entry) => toDisplayLine(entry.event).length));
    for (const entry of entries) {
      const when = `${formatAge(entry.at, now)} ago`.padStart(8);
      const event = toDisplayLine(entry.event).padEnd(width);
      lines.push(
        `  ${when}  ${entry.source.padEnd(8)}  ${event}  ${entry.status.padEnd(7)}  ${toDisplayLine(entry.change)}${entry.recorded ? "" : "  (not written)"}`,
      );
    }
  }
  if (unwritten > 0)
    lines.push(
      `${unwritten} change(s) shown are not written yet: events queued while the record's lock was busy, or a session replaced meanwhile; the next event writes them.`,
    );
  if (note) lines.push(toDisplayLine(note));
  return lines.join("\n");
}
