// `tongs-agents answer <query> <reply>`: reply to a waiting agent's open dialog without going there (docs/answer.md).
// The service decides and guards; this verb parses the reply, prints what was done or why nothing was, and exits 0
// only when a reply was sent.
import { EXIT_CODES } from "../core/errors.ts";
import { displayLine } from "../core/terminal-text.ts";
import { offeredReplies } from "../answer/dialogs.ts";
import { parseReply, REPLY_FORMS } from "../answer/replies.ts";
import { answeredLine, answerSession, readOpenDialog, type AnswerFailure, type AnswerRequest, type OpenDialog } from "../answer/service.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type VerbIo, type Verb } from "./io.ts";

const ANSWER_HELP: VerbHelp = {
  usage: "answer <query> <reply> [--wait <id>] [--json] [--from-agent]",
  summary: [
    "Reply to the open dialog of a waiting session, or send nothing and say why (exit 10). The reply goes only to the",
    "wait that is open (or the one --wait names, as `show` printed it), and, by keys, only after the pane was read twice",
    "and shows that harness's dialog with an option whose label gives the reply. Replies:",
    ...REPLY_FORMS.map(([form, what]) => `  ${form.padEnd(22)}${what}`),
  ].join("\n"),
  options: [
    ["<query>", "which session: id, short id prefix, session id prefix, PID, directory or repository"],
    ["--wait <id>", "answer only this wait (the id `show` prints); refused once another wait took its place"],
    ["--json", "print the result as JSON"],
    ["--from-agent", "answer although this runs inside an agent's process tree (say so only when you typed it yourself)"],
  ],
  examples: ["tongs-agents answer webapp show", "tongs-agents answer 3f2a allow --wait 9c41d0e2aa17", "tongs-agents answer webapp deny"],
};

export const answerVerb: Verb = withHelp(ANSWER_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, wait: { type: "string" }, "from-agent": { type: "boolean" } }, "any");
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const [query, ...words] = parsed.positionals;
  if (query === undefined || words.length === 0)
    return fail({ ok: false, reason: "usage", detail: "answer takes a session and a reply (or show)" }, io, json);
  const reply = parseReply(words);
  if (!reply.ok) return fail(reply, io, json);
  const request: AnswerRequest = {
    query,
    waitId: typeof parsed.values.wait === "string" ? parsed.values.wait : undefined,
    fromAgent: parsed.values["from-agent"] === true,
  };
  if ("show" in reply) {
    const open = await readOpenDialog(request, context);
    if (!open.ok) return refused(open, io, json);
    if (json) io.stdout(JSON.stringify(open, null, 2));
    else printDialog(open, io);
    return EXIT_CODES.ok;
  }
  const answered = await answerSession(request, reply.reply, context);
  if (!answered.ok) return refused(answered, io, json);
  if (json) io.stdout(JSON.stringify(answered, null, 2));
  else io.stdout(answeredLine(answered));
  if (answered.unrecorded !== undefined) io.stderr(`tongs-agents: the answer stands, but explain will not show it: ${answered.unrecorded}`);
  return EXIT_CODES.ok;
});

function printDialog(open: OpenDialog, io: VerbIo): void {
  io.stdout(
    `${open.session}  wait ${open.wait.id}  ${open.wait.kind}${open.wait.tool ? `: ${open.wait.tool}` : ""}  since ${open.wait.since}`,
  );
  io.stdout(`channel: keys into ${open.target} (${open.evidence})`);
  for (const line of open.dialog.context) io.stdout(`  | ${displayLine(line)}`);
  io.stdout(`  ${displayLine(open.dialog.title)}`);
  io.stdout("replies:");
  for (const offered of offeredReplies(open.dialog)) io.stdout(`  ${displayLine(offered)}`);
}

function refused(failure: AnswerFailure, io: VerbIo, json: boolean): number {
  if (failure.reason === "not-found" || failure.reason === "ambiguous" || failure.reason === "state-dir") {
    const base = failure.reason === "ambiguous" ? { ...failure, candidates: failure.candidates ?? [] } : failure;
    return fail(base as Parameters<typeof fail>[0], io, json);
  }
  if (json) io.stdout(JSON.stringify(failure, null, 2));
  else io.stderr(`tongs-agents: ${failure.detail}`);
  return EXIT_CODES.refused;
}
