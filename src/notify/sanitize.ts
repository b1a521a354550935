// Text from agents (directory names, tool names, the last reply) goes into escape sequences, AppleScript arguments,
// D-Bus strings and tmux messages. Everything is cleaned here first, so no terminal control sequence from a payload
// ever reaches a terminal, and then escaped for the one place it goes (docs/notifications.md, "Safety").
import { toDisplayLine } from "../core/bounds.ts";

/** Longest title and body line a notification carries, in code points (servers cut long text anyway). */
export const TITLE_MAX_CHARS = 80;
export const LINE_MAX_CHARS = 160;

/**
 * One display line: lone surrogates (text that was not valid UTF-8) become U+FFFD; C0 and C1 controls (ESC, BEL, the
 * 8-bit CSI and ST), DEL, bidirectional overrides and line separators become spaces; runs of whitespace one space;
 * cut to `maxChars` code points, the cut marked with an ellipsis.
 */
export function cleanLine(text: string, maxChars: number = LINE_MAX_CHARS): string {
  const line = toDisplayLine(text.toWellFormed());
  const chars = Array.from(line);
  return chars.length <= maxChars ? line : `${chars.slice(0, Math.max(0, maxChars - 1)).join("")}…`;
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
 * A tmux message argument: `#` starts a format (`#(cmd)` would run a command), so it is doubled; an argument ending
 * in `;` ends a tmux command, so one is never last.
 */
export function tmuxMessageText(text: string): string {
  const escaped = text.replaceAll("#", "##");
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
