// `tongs-agents mcp`: the MCP server on stdin/stdout until the client closes the connection.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { VERSION } from "../core/version.ts";
import { createMcpServer, type McpContext } from "./server.ts";

export async function serveMcp(deps: Omit<McpContext, "version">): Promise<void> {
  const server = createMcpServer({ ...deps, version: VERSION });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
