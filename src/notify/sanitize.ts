// Text from agents (directory names, tool names, the last reply) goes into escape sequences, AppleScript arguments,
// D-Bus strings and tmux messages. Everything is made one safe line first (src/core/terminal-text.ts: the one place
// for any text shown), so no terminal control sequence from a payload ever reaches a terminal, and then escaped for
// the one place it goes (docs/notifications.md, "Safety").
import { cutChars, displayLine, tmuxFormatText } from "../core/terminal-text.ts";

/** Longest title and body line a notification carries, in code points (servers cut long text anyway). */
export const TITLE_MAX_CHARS = 80;
export const LINE_MAX_CHARS = 160;

/**
 * One display line (every control character, bidirectional override and lone surrogate shown as its `\u` escape;
 * runs of whitespace one space), cut to `maxChars` code points, the cut marked with an ellipsis.
 */
export function cleanLine(text: string, maxChars: number = LINE_MAX_CHARS): string {
  return cutChars(displayLine(text), maxChars);
}

/** Lines of a notification body, each cleaned; at most `maxLines`, the rest counted in a last line. */
export function cleanLines(lines: readonly string[], maxLines: number): string[] {
  const kept = lines.map((line) => cleanLine(line)).filter((line) => line !== "");
  return kept.length <= maxLines ? kept : [...kept.slice(0, maxLines - 1), `and ${kept.length - maxLines + 1} more`];
}

/** Body text for a server that advertises `body-markup`: its markup characters become entities. */
export function escapeMarkup(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * A tmux message argument: a format (`#` doubled, src/core/terminal-text.ts); an argument ending in `;` ends a tmux
 * command, so one is never last.
 */
export function tmuxMessageText(text: string): string {
  const escaped = tmuxFormatText(text);
  return escaped.endsWith(";") ? `${escaped}.` : escaped;
}

/** OSC 777's fields are separated by `;`: a title never contains one. */
export function oscField(text: string): string {
  return text.replaceAll(";", ",");
}

/** OSC 9 text that starts with digits and `;` is read as a sub-command (`9;4;...` is a progress bar): never start so. */
export function osc9Text(text: string): string {
  return /^\d+;/.test(text) ? ` ${text}` : text;
}
