// `tongs-agents show <query>`: one session in full. The query is resolved like focus's (ids, PID, directory, repo).
import { EXIT_CODES } from "../core/errors.ts";
import { findSession } from "../fleet/queries.ts";
import { formatDetails } from "./format.ts";
import { fail, parse, type Verb } from "./io.ts";

export const showVerb: Verb = async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await findSession(context, parsed.positionals[0] as string);
  if (!result.ok) return fail(result, io, json);
  io.stdout(json ? JSON.stringify(result.session, null, 2) : formatDetails(result.session, context.now()));
  return EXIT_CODES.ok;
};
