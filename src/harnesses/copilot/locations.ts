// Where Copilot CLI keeps the files the installer edits: $COPILOT_HOME (default ~/.copilot), as Copilot resolves it.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function copilotHome(world: InstallContext): string {
  return envDir(world, "COPILOT_HOME") ?? join(world.home, ".copilot");
}

/** Copilot loads every `*.json` in its hooks directory; this one is ours alone (observed, 1.0.102). */
export function copilotHooksPath(world: InstallContext): string {
  return join(copilotHome(world), "hooks", "tongs-agents.json");
}

/** Copilot's user MCP servers: `copilot mcp add` writes `mcpServers` here (1.0.102, `copilot mcp --help`). */
export function copilotMcpPath(world: InstallContext): string {
  return join(copilotHome(world), "mcp-config.json");
}
