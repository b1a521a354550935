import { EXIT_CODES, type Failure } from "../errors.ts";
import { loadFleet, resolveQuery, type SessionView } from "../sessions.ts";
import type { CliContext } from "./context.ts";
import { formatDetails } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { tmuxPlaceOf } from "./tmux-place.ts";
import { fail, parse, type Verb } from "./io.ts";

export type ShowResult = { ok: true; session: SessionView } | Failure;

export async function showSession(context: CliContext, query: string): Promise<ShowResult> {
  const fleet = await loadFleet({ stateDir: context.stateDir, processes: context.processes, listProcesses: context.listProcesses, now: context.now });
  if (fleet.problem) return { ok: false, reason: "state-dir", detail: fleet.problem };
  const found = resolveQuery(fleet.sessions, query);
  if (found.kind === "none") return { ok: false, reason: "not-found", detail: `no session matches ${JSON.stringify(query)}` };
  if (found.kind === "ambiguous") {
    return {
      ok: false,
      reason: "ambiguous",
      detail: `${found.candidates.length} sessions match ${JSON.stringify(query)}; use a longer id`,
      candidates: found.candidates,
    };
  }
  return { ok: true, session: found.session };
}

const SHOW_HELP: VerbHelp = {
  usage: "show <query> [--json]",
  summary: "One session in full. The query is a canonical id, a unique prefix of the short id, a prefix of the harness's\nsession id, or a PID; when several sessions match, they are listed (exit 4).",
  options: [
    ["<query>", "which session"],
    ["--json", "print the session as JSON"],
  ],
  examples: ["tongs-agents show 3f2a", "tongs-agents show 12345 --json"],
};

export const showVerb: Verb = withHelp(SHOW_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await showSession(context, parsed.positionals[0] as string);
  if (!result.ok) return fail(result, io, json);
  if (json) io.stdout(JSON.stringify(result.session, null, 2));
  else io.stdout(formatDetails(result.session, context.now, result.session.status === "ended" ? {} : { tmuxPlace: await tmuxPlaceOf(result.session.terminal.env) }));
  return EXIT_CODES.ok;
});
