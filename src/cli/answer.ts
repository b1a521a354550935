// `tongs-agents answer <query> <reply>`: reply to a waiting agent's open dialog without going there (docs/answer.md).
// The service decides and guards; this verb parses the reply, prints what was done or why nothing was, and exits 0
// only when a reply was sent.
import { EXIT_CODES } from "../core/errors.ts";
import { displayLine } from "../core/terminal-text.ts";
import { offeredReplies, type DialogOption, type OptionReply } from "../answer/dialogs.ts";
import type { HostEntry } from "../hosts/config.ts";
import { answerOnHost } from "../hosts/answer.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { splitHostQuery } from "../hosts/find.ts";
import type { CliContext } from "./context.ts";
import { parseReply, REPLY_FORMS } from "../answer/replies.ts";
import {
  agentAbove,
  answeredLine,
  answerSession,
  insideAgent,
  readOpenDialog,
  type AnswerFailure,
  type AnswerRequest,
  type OpenDialog,
} from "../answer/service.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type VerbIo, type Verb } from "./io.ts";

const ANSWER_HELP: VerbHelp = {
  usage: "answer [HOST:]<query> <reply> [--wait <id>] [--json] [--from-agent] [--local]",
  summary: [
    "Reply to the open dialog of a waiting session, or send nothing and say why (exit 10). The reply goes only to the",
    "wait that is open (or the one --wait names, as `show` printed it), and, by keys, only after the pane was read twice",
    "and shows that harness's dialog with an option whose label gives the reply. HOST:query is answered on that SSH",
    "host by its own tongs-agents, with the same guards (docs/answer.md). Replies:",
    ...REPLY_FORMS.map(([form, what]) => `  ${form.padEnd(22)}${what}`),
  ].join("\n"),
  options: [
    ["<query>", "which session: id, short id prefix, session id prefix, PID, directory or repository"],
    ["--wait <id>", "answer only this wait (the id `show` prints); refused once another wait took its place"],
    ["--json", "print the result as JSON"],
    ["--from-agent", "answer although this runs inside an agent's process tree (say so only when you typed it yourself)"],
    ["--local", "this machine only: HOST: is not read as a host (what a host runs when asked)"],
  ],
  examples: ["tongs-agents answer webapp show", "tongs-agents answer 3f2a allow --wait 9c41d0e2aa17", "tongs-agents answer webapp deny"],
};

export const answerVerb: Verb = withHelp(ANSWER_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { json: { type: "boolean" }, wait: { type: "string" }, "from-agent": { type: "boolean" }, local: { type: "boolean" } },
    "any",
  );
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
  const split = parsed.values.local === true ? undefined : splitHostQuery(query, hostsOf(context).hosts);
  if (split) {
    // Only a person answers: this side's process tree is checked here; the host's command runs under its sshd.
    const agent = request.fromAgent ? undefined : await agentAbove(context);
    if (agent !== undefined) return refused(insideAgent(agent), io, json);
    return answerRemote(context, io, json, { ...split, words, waitId: request.waitId });
  }
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
  io.stdout(`channel: ${open.channel === "keys" ? "keys into " : ""}${open.target} (${open.evidence})`);
  for (const line of open.dialog.context) io.stdout(`  | ${displayLine(line)}`);
  io.stdout(`  ${displayLine(open.dialog.title)}`);
  io.stdout("replies:");
  for (const offered of offeredReplies(open.dialog)) io.stdout(`  ${displayLine(offered)}`);
}

/** `HOST:query`: the host answers with its own `answer --json --local`; its result is printed as a local one would be. */
async function answerRemote(
  context: CliContext,
  io: VerbIo,
  json: boolean,
  { host, query, words, waitId }: { host: HostEntry; query: string; words: readonly string[]; waitId: string | undefined },
): Promise<number> {
  const asked = await answerOnHost(host, query, words, waitId, hostsOf(context).remote);
  if (!asked.ok) {
    if (json) io.stdout(JSON.stringify({ ok: false, reason: asked.report.state, detail: asked.detail, host: asked.report }, null, 2));
    else io.stderr(`tongs-agents: ${asked.detail}`);
    return EXIT_CODES.error;
  }
  const { value } = asked;
  if (json) io.stdout(JSON.stringify({ ...value, host: host.name }, null, 2));
  if (value.ok !== true) {
    const detail = `on ${host.name}: ${value.detail}`;
    if (value.reason === "not-found" || value.reason === "ambiguous") {
      if (!json) io.stderr(`tongs-agents: ${detail}`);
      return value.reason === "not-found" ? EXIT_CODES["not-found"] : EXIT_CODES.ambiguous;
    }
    if (!json) io.stderr(`tongs-agents: ${detail}`);
    return EXIT_CODES.refused;
  }
  if (json) return EXIT_CODES.ok;
  const option = (shown: { number: number; label: string; reply?: OptionReply | null | undefined }): DialogOption => ({
    number: shown.number,
    label: shown.label,
    reply: shown.reply ?? undefined,
  });
  if ("dialog" in value)
    printDialog(
      { ...value, target: `${host.name}: ${value.target}`, dialog: { ...value.dialog, options: value.dialog.options.map(option) } },
      io,
    );
  else io.stdout(answeredLine({ ...value, target: `${host.name}: ${value.target}`, option: option(value.option) }));
  return EXIT_CODES.ok;
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
