// `tongs-agents show <query>`: one session in full. The query is resolved like focus's (ids, PID, directory, repo), and
// like focus's reaches SSH hosts: `HOST:query`, or a query nothing here matches (src/cli/remote-session.ts).
import { EXIT_CODES } from "../core/errors.ts";
import { findSession } from "../fleet/queries.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { splitHostQuery } from "../hosts/find.ts";
import { formatDetails } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { tmuxPlaceOf } from "../../backends/tmux/place.ts";
import { fail, parse, type Verb } from "./io.ts";
import { showRemote } from "./remote-session.ts";

const SHOW_HELP: VerbHelp = {
  usage: "show <query> [--json] [--local]",
  summary:
    "One session in full. The query is what focus takes: a canonical id, a unique prefix of the short id, a prefix of\nthe harness's session id, a PID, or a unique directory or repository name; when several sessions match, they are\nlisted (exit 4). HOST:query shows a session on an SSH host (docs/hosts.md).",
  options: [
    ["<query>", "which session"],
    ["--json", "print the session as JSON"],
    ["--local", "this machine only (no SSH hosts)"],
  ],
  examples: ["tongs-agents show 3f2a", "tongs-agents show webapp --json", "tongs-agents show devbox:3f2a"],
};

export const showVerb: Verb = withHelp(SHOW_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, local: { type: "boolean" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const query = parsed.positionals[0] as string;
  const hosts = parsed.values.local === true ? [] : hostsOf(context).hosts;
  const split = splitHostQuery(query, hosts);
  if (split) return showRemote(context, io, json, { query: split.query, only: split.host });
  const result = await findSession(context, query);
  if (!result.ok && result.reason === "not-found" && hosts.length > 0) return showRemote(context, io, json, { query, localMiss: result });
  if (!result.ok) return fail(result, io, json);
  if (json) io.stdout(JSON.stringify(result.session, null, 2));
  else
    io.stdout(
      formatDetails(
        result.session,
        context.now(),
        result.session.status === "ended" ? {} : { tmuxPlace: await tmuxPlaceOf(result.session.terminal.env, context.run) },
      ),
    );
  return EXIT_CODES.ok;
});
