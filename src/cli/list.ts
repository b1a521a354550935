import { EXIT_CODES } from "../core/errors.ts";
import { listEverywhere } from "../hosts/everywhere.ts";
import { formatHostReports, hostedForTable } from "./format-hosts.ts";
import { formatTable } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const LIST_HELP: VerbHelp = {
  usage: "list [--json] [--all] [--local]",
  summary:
    "Agent sessions sorted by who needs you: waiting, error, idle, running, started, discovered, ended. Ended and stale\nsessions are hidden unless --all. Sessions on configured SSH hosts (tongs-agents hosts) are listed as HOST:ID.",
  options: [
    ["--json", "print the sessions as JSON (the shape in docs/contract.md)"],
    ["--all", "include ended and stale sessions"],
    ["--local", "this machine only (no SSH hosts)"],
  ],
  examples: ["tongs-agents list", "tongs-agents list --all --json"],
};

export const listVerb: Verb = withHelp(LIST_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, all: { type: "boolean" }, local: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await listEverywhere(context, { all: parsed.values.all === true, local: parsed.values.local === true });
  if (result.problem) return fail({ ok: false, reason: "state-dir", detail: result.problem }, io, json);
  if (json) {
    io.stdout(JSON.stringify({ sessions: result.sessions, invalid: result.invalid, hosts: result.hosts }, null, 2));
    return EXIT_CODES.ok;
  }
  if (result.sessions.length === 0)
    io.stdout(parsed.values.all ? "No sessions." : "No agent sessions running. (`tongs-agents list --all` includes ended ones.)");
  else io.stdout(formatTable(hostedForTable(result.sessions), { now: context.now(), width: io.columns, home: io.home }));
  const hostLines = formatHostReports(result.hosts, result.hostsProblem);
  if (hostLines !== "") io.stdout(hostLines);
  return EXIT_CODES.ok;
});
