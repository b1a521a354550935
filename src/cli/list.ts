import { EXIT_CODES } from "../core/errors.ts";
import { listSessions } from "../fleet/queries.ts";
import { formatTable } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const LIST_HELP: VerbHelp = {
  usage: "list [--json] [--all]",
  summary:
    "Agent sessions sorted by who needs you: waiting, error, idle, running, started, discovered, ended. Ended and stale\nsessions are hidden unless --all.",
  options: [
    ["--json", "print the sessions as JSON (the shape in docs/contract.md)"],
    ["--all", "include ended and stale sessions"],
  ],
  examples: ["tongs-agents list", "tongs-agents list --all --json"],
};

export const listVerb: Verb = withHelp(LIST_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, all: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await listSessions(context, { all: parsed.values.all === true });
  if (result.problem) return fail({ ok: false, reason: "state-dir", detail: result.problem }, io, json);
  if (json) io.stdout(JSON.stringify({ sessions: result.sessions, invalid: result.invalid }, null, 2));
  else if (result.sessions.length === 0)
    io.stdout(parsed.values.all ? "No sessions." : "No agent sessions running. (`tongs-agents list --all` includes ended ones.)");
  else io.stdout(formatTable(result.sessions, { now: context.now(), color: io.color, width: io.columns }));
  return EXIT_CODES.ok;
});
