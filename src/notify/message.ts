// What a notification says: one session ("Claude Code needs you: api", its detail, where it is), or several that
// became ready together in one notice that names them all. Every piece of agent text is cleaned here (sanitize.ts).
import { basename } from "node:path";
import type { Notice, Urgency } from "./contract.ts";
import type { NotifyState } from "./config.ts";
import { LINE_MAX_CHARS, TITLE_MAX_CHARS, cleanLine, cleanLines } from "./sanitize.ts";

export interface NoticeInput {
  readonly id: string;
  readonly harnessName: string;
  readonly cwd: string;
  readonly status: NotifyState;
  readonly detail: string;
  /** Where it runs, from the survey: `tmux %3 (work:2)`. */
  readonly where: string;
  /** What happened, in place of `<harness> failed` (a quota window near its limit: `<harness> quota at 92%`). */
  readonly headline?: string;
  /** The open wait keys can answer (a notice about this one session offers Allow / Deny for it). */
  readonly wait?: string | undefined;
  /** A session on an SSH host: the host's name and the session's id there (`id` is then `HOST:ID`, what focus takes). */
  readonly host?: { readonly name: string; readonly id: string };
}

/** Body lines a notification shows at most; more sessions are counted in the last line. */
export const MAX_LINES = 6;

const VERB: Record<NotifyState, { one: string; many: string; fallback: string }> = {
  waiting: { one: "needs you", many: "need you", fallback: "waiting for you" },
  error: { one: "failed", many: "failed", fallback: "the turn failed" },
  idle: { one: "finished", many: "finished", fallback: "the turn is done" },
};

const URGENCY: Record<NotifyState, Urgency> = { waiting: "critical", error: "normal", idle: "low" };
const URGENCY_ORDER: readonly Urgency[] = ["critical", "normal", "low"];

function directoryName(cwd: string): string {
  return basename(cwd) || cwd;
}

export function composeNotice(sessions: readonly NoticeInput[]): Notice {
  const first = sessions[0];
  if (!first) throw new Error("a notice needs at least one session");
  const urgency = URGENCY_ORDER.find((level) => sessions.some((session) => URGENCY[session.status] === level)) as Urgency;
  const label = (session: NoticeInput) => cleanLine(`${directoryName(session.cwd)} (${session.harnessName})`, 48);
  let title: string;
  let lines: string[];
  if (sessions.length === 1) {
    title = cleanLine(
      `${first.headline ?? `${first.harnessName} ${VERB[first.status].one}`}: ${directoryName(first.cwd)}`,
      TITLE_MAX_CHARS,
    );
    lines = cleanLines([first.detail || VERB[first.status].fallback, first.where], MAX_LINES);
  } else {
    const same = sessions.every((session) => session.status === first.status);
    title = `${sessions.length} agents ${same ? VERB[first.status].many : "need you"}`;
    lines = cleanLines(
      sessions.map((session) => `${label(session)} ${session.status}: ${session.detail || VERB[session.status].fallback}`),
      MAX_LINES,
    );
  }
  return {
    title,
    lines,
    oneLine: cleanLine(`${title}: ${lines[0] ?? ""}`, LINE_MAX_CHARS),
    urgency,
    sessions: sessions.map((session) => ({
      id: session.id,
      label: label(session),
      facts: {
        ...(session.host ? { host: session.host.name, session: session.host.id } : {}),
        agent: session.harnessName,
        state: session.status,
        detail: session.detail,
        directory: session.cwd,
      },
      // Allow / Deny only on a notice about this one session: a button must never stand for several dialogs.
      ...(sessions.length === 1 && session.wait !== undefined ? { wait: session.wait } : {}),
    })),
  };
}

/** What `tongs-agents notify --test` sends through each channel. */
export function testNotice(channel: string): Notice {
  const title = "tongs-agents test notification";
  const lines = [`Sent through the ${channel} channel: notifications reach you here.`];
  return { title, lines, oneLine: `${title}: ${lines[0]}`, urgency: "normal", sessions: [] };
}
