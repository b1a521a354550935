// `tongs-agents explain <query> [--json]`: why a session shows its state (fleet/explain.ts). The human form lists the
// open waits and the last events oldest first; --json prints the explanation as the MCP tool returns it. A session on an
// SSH host (`HOST:query`, or a query nothing here matches) is explained by the host (src/cli/remote-session.ts).
import { EXIT_CODES } from "../core/errors.ts";
import { explainSession } from "../fleet/explain.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { splitHostQuery } from "../hosts/find.ts";
import { formatExplanation } from "./format-explain.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const EXPLAIN_HELP: VerbHelp = {
  usage: "explain <query> [--json] [--local]",
  summary:
    "Why a session shows its state: the waits still open, and the last events that made the state, oldest first, with\nwhen, from which source (hook, bridge, transcript, session-state, liveness check) and what each changed.\nHOST:query explains a session on an SSH host (docs/hosts.md).",
  options: [
    ["<query>", "which session (what focus takes: id, PID, directory or repository name)"],
    ["--json", "print the explanation as JSON (as the MCP tool explain_session returns it)"],
    ["--local", "this machine only (no SSH hosts)"],
  ],
  examples: ["tongs-agents explain webapp"],
};

export const explainVerb: Verb = withHelp(EXPLAIN_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, local: { type: "boolean" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const query = parsed.positionals[0] as string;
  const hosts = parsed.values.local === true ? [] : hostsOf(context).hosts;
  const split = splitHostQuery(query, hosts);
  // Loaded only for a host's session.
  if (split) return (await import("./remote-session.ts")).explainRemote(context, io, json, { query: split.query, only: split.host });
  const result = await explainSession(context, query);
  if (!result.ok && result.reason === "not-found" && hosts.length > 0)
    return (await import("./remote-session.ts")).explainRemote(context, io, json, { query, localMiss: result });
  if (!result.ok) return fail(result, io, json);
  io.stdout(json ? JSON.stringify(result.explanation, null, 2) : formatExplanation(result.explanation, context.now(), io));
  return EXIT_CODES.ok;
});
