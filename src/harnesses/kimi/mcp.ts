// Kimi Code's MCP registration: our server in $KIMI_CODE_HOME/mcp.json, the user-level file Kimi Code 2.1.0 reads
// (`{"mcpServers": {...}}`, strict JSON), in the shape `kimi mcp add` writes for a stdio server.
import { commandAndArgs, mcpFileState, planMcpFile, type McpJsonFormat } from "../../install/mcp-json.ts";
import type { McpState } from "../../install/mcp-entry.ts";
import type { Finding, Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { kimiMcpPath } from "./locations.ts";

export const KIMI_MCP: McpJsonFormat = {
  dialect: "json",
  container: "mcpServers",
  entry: ({ command, args }) => ({ command, args: [...args] }),
  command: commandAndArgs,
};

const desired = (world: InstallContext) => {
  const paths = ourPaths(world);
  return { command: paths.node, args: [paths.cli, "mcp"] };
};

export const planKimiMcp = (world: InstallContext, intent: Intent, findings: Finding[]): Step | undefined =>
  planMcpFile(kimiMcpPath(world), KIMI_MCP, desired(world), intent, findings);

export const kimiMcpState = (world: InstallContext): McpState | "unknown" => mcpFileState(kimiMcpPath(world), KIMI_MCP, desired(world));
