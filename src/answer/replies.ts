// The replies a user can give a waiting agent, parsed from the command line: one vocabulary for every harness and
// channel. Which of them a given dialog offers is the channel's to say (dialogs.ts); a reply it does not offer is refused.
import type { Failure } from "../core/errors.ts";
import { quoted } from "../core/terminal-text.ts";

export type Reply =
  /** Allow this one request. */
  | { readonly kind: "allow" }
  /** Allow it and do not ask again (the harness's own scope: a rule, "all future sessions"). */
  | { readonly kind: "always" }
  /** Allow it for the rest of this session. */
  | { readonly kind: "session" }
  | { readonly kind: "deny"; readonly message?: string }
  /** One of a question's options, by its number as shown or by its label. */
  | { readonly kind: "choice"; readonly number?: number; readonly label?: string }
  | { readonly kind: "text"; readonly text: string };

export const REPLY_FORMS: readonly (readonly [string, string])[] = [
  ["allow (or once, yes)", "allow this request once"],
  ["always", "allow, and do not ask again (where the dialog offers it)"],
  ["session", "allow for the rest of this session (where the dialog offers it)"],
  ["deny [message]", "refuse (the message goes along where the harness takes one)"],
  ["<n>", "the option numbered n, as the dialog shows it"],
  ["choose <label>", "the option with this label (a unique start of it is enough)"],
  ["text <free text>", "free text, for a question that takes it"],
  ["show", "print the open wait and the replies its dialog offers; send nothing"],
];

export type ParsedReply = { readonly ok: true; readonly reply: Reply } | { readonly ok: true; readonly show: true } | Failure;

export function parseReply(words: readonly string[]): ParsedReply {
  const [word = "", ...rest] = words;
  const tail = rest.join(" ").trim();
  const only = (reply: Reply): ParsedReply =>
    rest.length === 0 ? { ok: true, reply } : { ok: false, reason: "usage", detail: `${quoted(word)} takes nothing after it` };
  switch (word.toLowerCase()) {
    case "show":
      return rest.length === 0 ? { ok: true, show: true } : { ok: false, reason: "usage", detail: "show takes nothing after it" };
    case "allow":
    case "once":
    case "yes":
      return only({ kind: "allow" });
    case "always":
      return only({ kind: "always" });
    case "session":
      return only({ kind: "session" });
    case "deny":
    case "no":
    case "reject":
      return { ok: true, reply: tail === "" ? { kind: "deny" } : { kind: "deny", message: tail } };
    case "choose":
      return tail === ""
        ? { ok: false, reason: "usage", detail: "choose takes the option's label" }
        : { ok: true, reply: { kind: "choice", label: tail } };
    case "text":
      return tail === ""
        ? { ok: false, reason: "usage", detail: "text takes the text to send" }
        : { ok: true, reply: { kind: "text", text: tail } };
  }
  if (/^[1-9]\d?$/.test(word)) return only({ kind: "choice", number: Number(word) });
  return {
    ok: false,
    reason: "usage",
    detail: `unknown reply ${quoted(word)}; the replies: ${REPLY_FORMS.map(([form]) => form.split(" ")[0]).join(", ")}`,
  };
}

export function describeReply(reply: Reply): string {
  switch (reply.kind) {
    case "choice":
      return reply.number !== undefined ? `option ${reply.number}` : `the option ${quoted(reply.label ?? "")}`;
    case "deny":
      return reply.message === undefined ? "deny" : "deny with a message";
    case "text":
      return "free text";
    default:
      return reply.kind;
  }
}
