import { EXIT_CODES } from "../core/errors.ts";
import { listEverywhere } from "../hosts/everywhere.ts";
import type { CliContext } from "./context.ts";
import { formatHostReports, hostedForTable } from "./format-hosts.ts";
import { formatTable } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Output, type Styled, type Verb } from "./io.ts";
import { watchList } from "./list-watch.ts";

const LIST_HELP: VerbHelp = {
  usage: "list [--json] [--all] [--local] [--watch]",
  summary:
    "Agent sessions sorted by who needs you: waiting, error, idle, running, started, discovered, ended. Ended and stale\nsessions are hidden unless --all. Sessions on configured SSH hosts (tongs-agents hosts) are listed as HOST:ID.",
  options: [
    ["--json", "print the sessions as JSON (the shape in docs/contract.md)"],
    ["--all", "include ended and stale sessions"],
    ["--local", "this machine only (no SSH hosts)"],
    ["--watch", "keep the list on screen, redrawn when a session changes (this machine); q or Ctrl-C quits"],
  ],
  examples: ["tongs-agents list", "tongs-agents list --all --json", "tongs-agents list --watch"],
};

/** The table `list` prints, and the lines about hosts under it; a failure to read the state dir as its words. */
export async function listOutput(
  context: CliContext,
  { all, local, width, home }: { all: boolean; local: boolean; width: number; home: string | undefined },
): Promise<{ problem: string } | { text: (string | Styled)[] }> {
  const result = await listEverywhere(context, { all, local });
  if (result.problem) return { problem: result.problem };
  const text: (string | Styled)[] =
    result.sessions.length === 0
      ? [all ? "No sessions." : "No agent sessions running. (`tongs-agents list --all` includes ended ones.)"]
      : formatTable(hostedForTable(result.sessions), { now: context.now(), width, home });
  const hostLines = formatHostReports(result.hosts, result.hostsProblem);
  if (hostLines !== "") text.push("\n", hostLines);
  return { text };
}

export const listVerb: Verb = withHelp(LIST_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { json: { type: "boolean" }, all: { type: "boolean" }, local: { type: "boolean" }, watch: { type: "boolean" } },
    0,
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const all = parsed.values.all === true;
  if (parsed.values.watch === true) {
    if (json) return fail({ ok: false, reason: "usage", detail: "--watch draws on a terminal; it does not go with --json" }, io, false);
    return watchList(io, {
      stateDir: context.stateDir,
      title: `tongs-agents list --watch (this machine${all ? ", all sessions" : ""})`,
      frame: (width) => listOutput(context, { all, local: true, width, home: io.home }),
    });
  }
  if (json) {
    const result = await listEverywhere(context, { all, local: parsed.values.local === true });
    if (result.problem) return fail({ ok: false, reason: "state-dir", detail: result.problem }, io, json);
    io.stdout(JSON.stringify({ sessions: result.sessions, invalid: result.invalid, hosts: result.hosts }, null, 2));
    return EXIT_CODES.ok;
  }
  const output = await listOutput(context, { all, local: parsed.values.local === true, width: io.columns, home: io.home });
  if ("problem" in output) return fail({ ok: false, reason: "state-dir", detail: output.problem }, io, false);
  io.stdout(output.text satisfies Output);
  return EXIT_CODES.ok;
});
