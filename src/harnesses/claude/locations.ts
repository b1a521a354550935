// Where Claude Code keeps the files the installer edits, resolved the way Claude Code resolves them.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function claudeConfigDir(world: InstallContext): string {
  return envDir(world, "CLAUDE_CONFIG_DIR") ?? join(world.home, ".claude");
}

export function claudeSettingsPath(world: InstallContext): string {
  return join(claudeConfigDir(world), "settings.json");
}

/** Claude Code keeps user-scope MCP servers in `.claude.json`: inside CLAUDE_CONFIG_DIR when set, else in HOME
 * (observed with `claude mcp add --scope user`, 2.1.332). */
export function claudeJsonPath(world: InstallContext): string {
  const dir = envDir(world, "CLAUDE_CONFIG_DIR");
  return dir ? join(dir, ".claude.json") : join(world.home, ".claude.json");
}
