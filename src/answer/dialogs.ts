// The keystroke fallback's knowledge of each harness's dialog: the line that asks, and how its options are drawn. A
// dialog is read from the screen when it is shown (never stored), and a reply is mapped to an option by the option's
// label, never by its position: Claude Code 2.1.332 puts "Yes, and switch to auto mode" at 3 and "No" at 4, where an
// older build had "No" at 3 (docs/answer.md, "The keystroke fallback").
import type { Reply } from "./replies.ts";
import { quoted } from "../core/terminal-text.ts";

/** How a harness draws a dialog with numbered options, and which keys pick one. */
export interface KeyDialogSpec {
  readonly harness: string;
  /** The line that asks ("Do you want to proceed?"): the dialog is the last such line on screen and what follows it. */
  readonly title: RegExp;
  /** At most this many lines of the request drawn between the title and the options (Codex's); default none. */
  readonly requestBelow?: number;
  /** The keys that pick an option, as seen to work on the running version (tmux key names). */
  readonly keysOf: (option: DialogOption) => readonly string[];
  /** What is known of it, with the version (docs/answer.md). */
  readonly evidence: string;
}

/** The option's digit alone picks it, no Enter after it (seen live on each harness that uses it). */
const digit = (option: DialogOption): readonly string[] => [String(option.number)];

export const KEY_DIALOGS: readonly KeyDialogSpec[] = [
  { harness: "claude", title: /^Do you want to /, keysOf: digit, evidence: "live, Claude Code 2.1.332 in tmux 3.3a" },
  { harness: "qwen", title: /^Allow execution of: /, keysOf: digit, evidence: "live, Qwen Code 0.24.4 in tmux 3.3a (shell commands)" },
  {
    harness: "gemini",
    title: /^Allow execution of \[/,
    keysOf: digit,
    evidence: "live, Gemini CLI 0.61.0 in tmux 3.3a (shell commands)",
  },
  {
    harness: "copilot",
    title: /^Do you want to run this command\?/,
    // A digit picks "1. Yes" and "2. Yes, and don't ask again …" at once; on "3. No, and tell Copilot what to do
    // differently (Esc to stop)" it only moves the highlight (that option waits for text, Enter on it does nothing):
    // Esc refuses, as the label says.
    keysOf: (option) => (/\(esc to stop\)$/i.test(option.label) ? ["Escape"] : digit(option)),
    evidence: "live, Copilot CLI 1.0.102 in tmux 3.3a (shell commands)",
  },
  {
    harness: "codex",
    title: /^Would you like to run the following command\?/,
    // Environment, Reason and the command itself sit between the title and the options.
    requestBelow: 12,
    keysOf: digit,
    evidence: "live, Codex 0.171.0 in tmux 3.3a (shell commands)",
  },
];

/** What an option's label gives, where it is one of the replies every harness shares. */
export type OptionReply = "allow" | "always" | "session" | "deny";

export interface DialogOption {
  readonly number: number;
  readonly label: string;
  readonly reply: OptionReply | undefined;
}

export interface ShownDialog {
  readonly title: string;
  /**
   * The request as the harness shows it, for `show` only: the lines above the title back to the dialog's rule, then
   * those between the title and the options where the harness draws them there.
   */
  readonly context: readonly string[];
  readonly options: readonly DialogOption[];
}

// "❯ 1. Yes" (the highlighted one, Gemini CLI marks it "●") or "  2. Yes, and …", trailing padding cut.
const OPTION = /^(?:[❯›>▶●]\s*)?(\d{1,2})\.\s+(\S.*?)$/;
// A line drawn only of box and rule characters.
const DRAWING = /^[\s─━╌═╭╮╰╯┌┐└┘-]{3,}$/;
// A box's side at either end (Gemini CLI draws its dialog in a box, the request in a box inside it).
const unboxed = (line: string): string => {
  let text = line.trim();
  for (let previous = ""; previous !== text;) {
    previous = text;
    text = text
      .replace(/^[│┃]\s?/, "")
      .replace(/\s*[│┃]$/, "")
      .trim();
  }
  return text;
};

/**
 * The dialog the screen shows, if it ends with one: the last title line, then (where the spec allows) a few lines of
 * the request, then options numbered 1, 2, … in order, then at most a footer of two lines. Anything else (the prompt
 * input, a dialog being redrawn) is no dialog.
 */
export function readDialog(lines: readonly string[], spec: KeyDialogSpec): ShownDialog | undefined {
  const visible = lines.map(unboxed).filter((line) => line !== "");
  const titleAt = visible.findLastIndex((line) => spec.title.test(line));
  if (titleAt < 0) return undefined;
  const request: string[] = [];
  let at = titleAt + 1;
  for (; at < visible.length && request.length < (spec.requestBelow ?? 0) && !OPTION.test(visible[at] as string); at++)
    request.push(visible[at] as string);
  const options: DialogOption[] = [];
  for (; at < visible.length; at++) {
    const match = OPTION.exec(visible[at] as string);
    if (!match || Number(match[1]) !== options.length + 1) break;
    const label = match[2] as string;
    options.push({ number: options.length + 1, label, reply: replyOfLabel(label) });
  }
  if (options.length < 2 || visible.length - at > 2) return undefined;
  const context: string[] = [];
  for (let line = titleAt - 1; line >= 0 && context.length < 8; line--) {
    const text = visible[line] as string;
    // The request ends upwards at a plain rule (Claude Code's) or the user's own prompt line; boxes are looked through.
    if (/^[>❯›] /.test(text) || (/^[─━]/.test(text) && DRAWING.test(text) && context.length > 0)) break;
    if (!DRAWING.test(text)) context.unshift(text);
  }
  return { title: visible[titleAt] as string, context: [...context, ...request], options };
}

/**
 * The shared reply an option's label gives. An option that also changes a mode ("switch to auto mode") gives none:
 * it is reachable only by its number or label, chosen on purpose.
 */
export function replyOfLabel(label: string): OptionReply | undefined {
  const text = label.toLowerCase();
  if (/\bmode\b|editor|amend/.test(text)) return undefined;
  if (/^(no|reject|deny|cancel)\b/.test(text)) return "deny";
  if (/^always allow\b/.test(text)) return "always";
  if (!/^(yes|allow|approve)\b/.test(text)) return undefined;
  if (/\b(this session|during this session|for the session)\b/.test(text)) return "session";
  if (/\b(always|don't ask again|do not ask again|all future sessions)\b/.test(text)) return "always";
  return /^(yes|allow|approve)(,? (once|just this once|proceed|allow once))?$/.test(text.replace(/\s*\(.*\)$/, "")) ? "allow" : undefined;
}

export type OptionChoice = { readonly ok: true; readonly option: DialogOption } | { readonly ok: false; readonly detail: string };

/** The one option a reply picks on this dialog, or why none. */
export function optionFor(dialog: ShownDialog, reply: Reply): OptionChoice {
  const offered = `it offers: ${offeredReplies(dialog).join("; ")}`;
  switch (reply.kind) {
    case "text":
      return { ok: false, detail: `this dialog takes no free text; ${offered}` };
    case "choice": {
      if (reply.number !== undefined) {
        const option = dialog.options.find((candidate) => candidate.number === reply.number);
        return option ? { ok: true, option } : { ok: false, detail: `the dialog has no option ${reply.number}; ${offered}` };
      }
      const wanted = (reply.label ?? "").toLowerCase();
      const exact = dialog.options.filter((option) => option.label.toLowerCase() === wanted);
      const starts = dialog.options.filter((option) => option.label.toLowerCase().startsWith(wanted));
      const found = exact.length === 1 ? exact : starts;
      if (found.length === 1) return { ok: true, option: found[0] as DialogOption };
      return {
        ok: false,
        detail: `${found.length === 0 ? "no option is labelled" : `${found.length} options start with`} ${quoted(reply.label ?? "")}; ${offered}`,
      };
    }
    default: {
      if (reply.kind === "deny" && reply.message !== undefined)
        return { ok: false, detail: `keys into the pane carry no message: deny without one, or answer in the pane; ${offered}` };
      const found = dialog.options.filter((option) => option.reply === reply.kind);
      if (found.length === 1) return { ok: true, option: found[0] as DialogOption };
      return {
        ok: false,
        detail: `${found.length === 0 ? "the dialog does not offer" : `${found.length} options mean`} ${reply.kind}; ${offered}`,
      };
    }
  }
}

/** Each option as the reply that picks it: `allow = 1. Yes`. */
export function offeredReplies(dialog: ShownDialog): string[] {
  return dialog.options.map((option) => `${option.reply ?? String(option.number)} = ${option.number}. ${option.label}`);
}

/** Two reads show the same dialog: the same request, title and options. */
export function sameDialog(a: ShownDialog, b: ShownDialog): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
