// The one place that makes text safe for a terminal. Agent records, SSH hosts' answers, config files, paths and
// arguments all reach the screen; none of their characters may be acted on by the terminal (an OSC 52 clipboard write,
// a title change, a colour, the 8-bit CSI) or by tmux (`#()` runs a command in a format). Every character a terminal
// could act on is written as its JSON escape (`\u001b`), so it is seen, never interpreted, and `--json` output stays
// valid JSON that parses back to the same text. Everything the CLI prints goes through `visibleText` (src/cli/io.ts);
// the picker, notifications and tmux texts through the functions below.

/**
 * C0 controls but newline and tab, DEL, C1 controls (the 8-bit CSI, OSC, ST), the Arabic letter mark, the
 * left-to-right and right-to-left marks, line and paragraph separators, bidirectional embeddings, overrides and
 * isolates (they make a line read differently from what it holds), and lone surrogates (text that was not UTF-8).
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const escapeOf = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Text for the terminal, lines kept: every character it could act on becomes its visible JSON escape. */
export function visibleText(text: string): string {
  return text.replace(UNSAFE, escapeOf);
}

/** One display line: made visible as above, then newlines, tabs and runs of whitespace one space, trimmed. */
export function displayLine(text: string): string {
  return visibleText(text).replace(/\s+/g, " ").trim();
}

/** Cut to at most `maxChars` code points, the cut marked with an ellipsis (a surrogate pair is never split). */
export function cutChars(text: string, maxChars: number): string {
  const chars = Array.from(text);
  return chars.length <= maxChars ? text : `${chars.slice(0, Math.max(0, maxChars - 1)).join("")}…`;
}

/** How long a value quoted in a message may be: enough to recognize it, never a screenful. */
export const QUOTED_MAX_CHARS = 80;

/**
 * A value quoted in a message (a rejected config value, an argument): a string in double quotes, cut to `maxChars`
 * and made visible; other values by their kind, so a message never dumps a whole structure.
 */
export function quoted(value: unknown, maxChars: number = QUOTED_MAX_CHARS): string {
  if (typeof value === "string") return visibleText(JSON.stringify(cutChars(value, maxChars)));
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "an empty list" : `a list of ${value.length}`;
  if (typeof value === "object") return "an object";
  return value === undefined ? "nothing" : `a ${typeof value}`;
}

/**
 * Text that tmux reads as a format (a status-line segment, a display-message, a popup title): one visible line, and
 * `#` doubled, since `#(cmd)` would run a command and `#[...]` restyle the line.
 */
export function tmuxFormatText(text: string): string {
  return displayLine(text).replaceAll("#", "##");
}
