// A notification's Allow / Deny (desktop-linux.ts offers them for one waiting session keys can answer) answers through
// the same guarded path as `tongs-agents answer` (src/answer/service.ts), tied to the wait the notification was shown
// for: a button of an older wait never answers a newer dialog. When nothing was sent, or the dialog still shows, a
// follow-up notification says why. docs/answer.md, "From a notification".
import { answeredLine, answerSession, type AnswerFailure, type Answered, type AnswerRequest } from "../answer/service.ts";
import type { Reply } from "../answer/replies.ts";
import { defaultProcessSource } from "../core/proc.ts";
import { clickEnvironment } from "./click.ts";
import type { ClickOutcome, Notice, NotifyChannel, NotifyWorld } from "./contract.ts";
import { cleanLine, cleanLines } from "./sanitize.ts";

export type ReplyChosen = Extract<ClickOutcome, { kind: "reply" }>;
export type Answer = (request: AnswerRequest, reply: Reply) => Promise<Answered | AnswerFailure>;

/**
 * The click came from the notification server (its unique bus name is checked on the signal), acting on the user's
 * input, so the answer is not refused as coming from inside an agent: the notifier was started by the agent's hook by
 * design, and its process tree says nothing about who chose the button.
 */
const defaultAnswer =
  (world: NotifyWorld): Answer =>
  (request, reply) =>
    answerSession({ ...request, fromAgent: true }, reply, {
      stateDir: world.stateDir,
      processes: defaultProcessSource(),
      env: clickEnvironment(world.env),
      run: world.run,
    });

/** The follow-up for an answer that sent nothing, or whose dialog still showed afterwards. */
export function replyReport(result: Answered | AnswerFailure): Notice {
  const title = result.ok ? "tongs-agents answered, but the dialog still shows" : "tongs-agents did not answer";
  const lines = cleanLines([result.ok ? answeredLine(result) : result.detail], 6);
  return { title, lines, oneLine: cleanLine(`${title}: ${lines[0] ?? ""}`), urgency: "normal", sessions: [] };
}

export async function handleReply(
  chosen: ReplyChosen,
  world: NotifyWorld,
  desktop: NotifyChannel,
  answer: Answer = defaultAnswer(world),
): Promise<{ result: Answered | AnswerFailure; followUp?: string }> {
  const result = await answer({ query: chosen.sessionId, waitId: chosen.wait, by: "a notification" }, { kind: chosen.reply });
  if (result.ok && result.closed) return { result };
  const sent = await desktop.deliver(replyReport(result), [], world);
  await sent.pending?.close();
  return { result, followUp: `${sent.outcome}: ${sent.detail}` };
}
