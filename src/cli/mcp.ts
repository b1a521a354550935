import { EXIT_CODES } from "../core/errors.ts";
import { serveMcp } from "../mcp/stdio.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const MCP_HELP: VerbHelp = {
  usage: "mcp",
  summary:
    "An MCP server on stdio: list_sessions, get_session, sessions_needing_attention, focus_session and\ncleanup_sessions. Agents start it; install registers it with Claude Code and Codex.",
  examples: ["claude mcp add --scope user tongs-agents -- tongs-agents mcp"],
};

export const mcpVerb: Verb = withHelp(MCP_HELP, async (args, context, io) => {
  const parsed = parse(args, {}, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  await serveMcp({ stateDir: context.stateDir, processes: context.processes, env: context.env });
  return EXIT_CODES.ok;
});
