// `tongs-agents mcp`: the MCP server on stdin/stdout until the client closes the connection.
import { Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { visibleText } from "../core/terminal-text.ts";
import { VERSION } from "../core/version.ts";
import { createMcpServer, type McpContext } from "./server.ts";

export async function serveMcp(deps: Omit<McpContext, "version">): Promise<void> {
  const server = createMcpServer({ ...deps, version: VERSION });
  const transport = new StdioServerTransport(process.stdin, safeStdout());
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

/**
 * Our stdout as the transport's: each message (one JSON line) with the characters a terminal could act on written as
 * their JSON escapes (src/core/terminal-text.ts), so the JSON is the same to a client and inert on a terminal.
 */
function safeStdout(): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      // A write error (the client gone: EPIPE) is process.stdout's, handled where the CLI starts (main.ts).
      process.stdout.write(visibleText(String(chunk)), () => done());
    },
  });
}
