// OpenCode's MCP registration: our server under `mcp` in its global opencode.json, in the shape OpenCode 1.18.33 reads
// for a local server (`opencode mcp list` starts it): `{"mcp": {"tongs-agents": {"type": "local", "command": [<node>,
// <cli>, "mcp"]}}}`; `enabled` is left out (OpenCode's default is on). Its `opencode mcp add` only asks interactively.
import { join } from "node:path";
import { mcpFileState, planMcpFile, type McpCommand, type McpJsonFormat } from "../../install/mcp-json.ts";
import type { McpState } from "../../install/mcp-entry.ts";
import { warning, type Finding, type Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { opencodeConfigDir } from "./locations.ts";

export const OPENCODE_MCP: McpJsonFormat = {
  container: "mcp",
  entry: ({ command, args }) => ({ type: "local", command: [command, ...args] }),
  command: (entry): McpCommand | undefined => {
    const words = entry.command;
    if (!Array.isArray(words) || words.length === 0 || !words.every((word) => typeof word === "string")) return undefined;
    const [command, ...args] = words as string[];
    return { command: command as string, args };
  },
};

export function opencodeConfigFile(world: InstallContext): string {
  return join(opencodeConfigDir(world), "opencode.json");
}

const desired = (world: InstallContext) => {
  const paths = ourPaths(world);
  return { command: paths.node, args: [paths.cli, "mcp"] };
};

/** OpenCode reads comments in opencode.json, our editor does not: such a file costs the MCP server only (a warning). */
export const planOpencodeMcp = (world: InstallContext, intent: Intent, findings: Finding[]): Step | undefined =>
  planMcpFile(opencodeConfigFile(world), OPENCODE_MCP, desired(world), intent, findings, warning);

export const opencodeMcpState = (world: InstallContext): McpState | "unknown" =>
  mcpFileState(opencodeConfigFile(world), OPENCODE_MCP, desired(world));
