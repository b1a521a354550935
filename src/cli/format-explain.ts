// `explain` in words, for a session here or on a host: the state, the waits still open, the last events oldest first.
// Fields are single display lines (src/core/terminal-text.ts); the writer (io.ts) adds the status colour.
import { formatAge } from "../core/age.ts";
import { shortenHome } from "../core/home.ts";
import { displayLine } from "../core/terminal-text.ts";
import type { Explanation } from "../fleet/explain.ts";
import { limitWhen } from "../fleet/row-words.ts";
import { colorStatus, statusLabel } from "./format.ts";
import type { CliIo, Styled } from "./io.ts";

export function formatExplanation(
  { session, pending, entries, unwritten, note }: Explanation,
  now: number,
  io: Pick<CliIo, "home">,
): (string | Styled)[] {
  const head: (string | Styled)[] = [
    `${session.short_id}  ${session.harness}  ${displayLine(shortenHome(session.cwd, io.home))}\n  `,
    colorStatus(session.status, statusLabel(session)),
    // A limit says when it resets before the harness's words, as the list row does.
    `${session.detail ? `: ${displayLine(session.limit ? `${limitWhen(session.limit, now)} · ${session.detail}` : session.detail)}` : ""}`,
  ];
  const lines: string[] = [];
  if (pending.length > 0) {
    lines.push("Open waits (the newest is shown):");
    for (const wait of pending)
      lines.push(
        `  ${wait.kind}${wait.tool ? ` ${displayLine(wait.tool)}` : ""}  ${formatAge(wait.since, now)} ago  ${displayLine(wait.detail)}`,
      );
  }
  if (entries.length > 0) {
    lines.push("Last events, oldest first (source, event, state after it, what changed):");
    const width = Math.max(...entries.map((entry) => displayLine(entry.event).length));
    for (const entry of entries) {
      const when = `${formatAge(entry.at, now)} ago`.padStart(8);
      const event = displayLine(entry.event).padEnd(width);
      lines.push(
        `  ${when}  ${entry.source.padEnd(8)}  ${event}  ${entry.status.padEnd(7)}  ${displayLine(entry.change)}${entry.recorded ? "" : "  (not written)"}`,
      );
    }
  }
  if (unwritten > 0)
    lines.push(
      `${unwritten} change(s) shown are not written yet: events queued while the record's lock was busy, or a session replaced meanwhile; the next event writes them.`,
    );
  if (note) lines.push(displayLine(note));
  return lines.length === 0 ? head : [...head, `\n${lines.join("\n")}`];
}
