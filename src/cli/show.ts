// `tongs-agents show <query>`: one session in full. The query is resolved like focus's (ids, PID, directory, repo).
import { EXIT_CODES } from "../core/errors.ts";
import { findSession } from "../fleet/queries.ts";
import { formatDetails } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { tmuxPlaceOf } from "./tmux-place.ts";
import { fail, parse, type Verb } from "./io.ts";

const SHOW_HELP: VerbHelp = {
  usage: "show <query> [--json]",
  summary:
    "One session in full. The query is what focus takes: a canonical id, a unique prefix of the short id, a prefix of\nthe harness's session id, a PID, or a unique directory or repository name; when several sessions match, they are\nlisted (exit 4).",
  options: [
    ["<query>", "which session"],
    ["--json", "print the session as JSON"],
  ],
  examples: ["tongs-agents show 3f2a", "tongs-agents show webapp --json"],
};

export const showVerb: Verb = withHelp(SHOW_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await findSession(context, parsed.positionals[0] as string);
  if (!result.ok) return fail(result, io, json);
  if (json) io.stdout(JSON.stringify(result.session, null, 2));
  else
    io.stdout(
      formatDetails(
        result.session,
        context.now(),
        result.session.status === "ended" ? {} : { tmuxPlace: await tmuxPlaceOf(result.session.terminal.env) },
      ),
    );
  return EXIT_CODES.ok;
});
