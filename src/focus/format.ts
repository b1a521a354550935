// A focus result in words: what `focus` prints, and what a notification says when a click's focus fell short.
import { shortenHome } from "../core/home.ts";
import { displayLine } from "../core/terminal-text.ts";
import type { FocusResult } from "./result.ts";

/** `home`: whose home directory is shown as `~` (the caller's); default: this process's. */
export function formatFocus(focus: FocusResult, home?: string): string {
  const who = focus.session ? `${focus.session.short_id} ${focus.session.harness} ${shortenHome(focus.session.cwd, home)}` : "";
  const head = `${focus.state}${who ? `: ${who}` : ""}${focus.target ? ` -> ${focus.target}` : ""}`;
  const lines = [displayLine(head)];
  if (focus.state === "unavailable" || focus.state === "not-found" || focus.state === "ambiguous")
    lines.push(`  ${displayLine(focus.detail)}`);
  else {
    const mark = (succeeded: boolean, attempted: boolean) => (succeeded ? "ok" : attempted ? "FAILED" : "not done");
    lines.push(`  selection:  ${mark(focus.selection.succeeded, focus.selection.attempted)} (${displayLine(focus.selection.detail)})`);
    lines.push(`  activation: ${mark(focus.activation.succeeded, focus.activation.attempted)} (${displayLine(focus.activation.detail)})`);
  }
  for (const candidate of focus.candidates)
    lines.push(`  ${candidate.short_id}  ${candidate.harness}  ${candidate.status}  ${displayLine(shortenHome(candidate.cwd, home))}`);
  return lines.join("\n");
}
