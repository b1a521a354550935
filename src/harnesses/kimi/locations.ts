// Where Kimi Code keeps the files the installer edits: $KIMI_CODE_HOME (default ~/.kimi-code), as Kimi Code 2.1.0
// resolves it (resolveKimiHome in its bundle): config.toml holds the `[[hooks]]` tables, mcp.json the user's MCP servers.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function kimiHome(world: InstallContext): string {
  return envDir(world, "KIMI_CODE_HOME") ?? join(world.home, ".kimi-code");
}

export function kimiConfigPath(world: InstallContext): string {
  return join(kimiHome(world), "config.toml");
}

export function kimiMcpPath(world: InstallContext): string {
  return join(kimiHome(world), "mcp.json");
}
