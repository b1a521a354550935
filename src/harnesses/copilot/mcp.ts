// Copilot CLI's MCP registration: our server in $COPILOT_HOME/mcp-config.json, a file Copilot shares with the user's
// own servers, in the shape `copilot mcp add tongs-agents -- <node> <cli> mcp` writes (1.0.102):
// `{"mcpServers": {"tongs-agents": {"tools": ["*"], "type": "local", "command": ..., "args": [...]}}}`.
import { commandAndArgs, mcpFileState, planMcpFile, type McpJsonFormat } from "../../install/mcp-json.ts";
import type { McpState } from "../../install/mcp-entry.ts";
import type { Finding, Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { copilotMcpPath } from "./locations.ts";

export const COPILOT_MCP: McpJsonFormat = {
  dialect: "json",
  container: "mcpServers",
  entry: ({ command, args }) => ({ tools: ["*"], type: "local", command, args: [...args] }),
  command: commandAndArgs,
};

const desired = (world: InstallContext) => {
  const paths = ourPaths(world);
  return { command: paths.node, args: [paths.cli, "mcp"] };
};

export const planCopilotMcp = (world: InstallContext, intent: Intent, findings: Finding[]): Step | undefined =>
  planMcpFile(copilotMcpPath(world), COPILOT_MCP, desired(world), intent, findings);

export const copilotMcpState = (world: InstallContext): McpState | "unknown" =>
  mcpFileState(copilotMcpPath(world), COPILOT_MCP, desired(world));
