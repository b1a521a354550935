// Cline's MCP registration: our server in cline_mcp_settings.json (`{"mcpServers": {...}}`, strict JSON), in the shape
// `cline mcp add --yes <name> -- <command> <args...>` writes for a stdio server in Cline 3.0.65 (a `transport` object).
import { isRecord } from "../../core/json-value.ts";
import { commandAndArgs, mcpFileState, planMcpFile, type McpJsonFormat } from "../../install/mcp-json.ts";
import type { McpState } from "../../install/mcp-entry.ts";
import type { Finding, Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { clineMcpPath } from "./locations.ts";

export const CLINE_MCP: McpJsonFormat = {
  dialect: "json",
  container: "mcpServers",
  entry: ({ command, args }) => ({ transport: { type: "stdio", command, args: [...args] } }),
  command: (entry) => (isRecord(entry.transport) && entry.transport.type === "stdio" ? commandAndArgs(entry.transport) : undefined),
};

const desired = (world: InstallContext) => {
  const paths = ourPaths(world);
  return { command: paths.node, args: [paths.cli, "mcp"] };
};

export const planClineMcp = (world: InstallContext, intent: Intent, findings: Finding[]): Step | undefined =>
  planMcpFile(clineMcpPath(world), CLINE_MCP, desired(world), intent, findings);

export const clineMcpState = (world: InstallContext): McpState | "unknown" => mcpFileState(clineMcpPath(world), CLINE_MCP, desired(world));
