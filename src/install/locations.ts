// Where each harness keeps the files the installer edits, resolved the way each harness resolves them.
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { InstallWorld } from "./world.ts";

function envDir(world: InstallWorld, name: string): string | undefined {
  const value = world.env[name];
  return value && isAbsolute(value) ? value : undefined;
}

export function claudeConfigDir(world: InstallWorld): string {
  return envDir(world, "CLAUDE_CONFIG_DIR") ?? join(world.home, ".claude");
}

export function claudeSettingsPath(world: InstallWorld): string {
  return join(claudeConfigDir(world), "settings.json");
}

/** Claude Code keeps user-scope MCP servers in `.claude.json`: inside CLAUDE_CONFIG_DIR when set, else in HOME
 * (observed with `claude mcp add --scope user`, 2.1.332). */
export function claudeJsonPath(world: InstallWorld): string {
  const dir = envDir(world, "CLAUDE_CONFIG_DIR");
  return dir ? join(dir, ".claude.json") : join(world.home, ".claude.json");
}

export function codexHome(world: InstallWorld): string {
  return envDir(world, "CODEX_HOME") ?? join(world.home, ".codex");
}

/** Codex canonicalizes CODEX_HOME (symlinks resolved) before it builds hook trust keys (observed, 0.171.0). */
export function codexHomeCanonical(world: InstallWorld): string {
  // Not created yet: resolve the nearest directory that exists and keep the rest as written.
  const rest: string[] = [];
  for (let dir = codexHome(world); ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return codexHome(world);
      rest.unshift(basename(dir));
    }
  }
}

export function piAgentDir(world: InstallWorld): string {
  return envDir(world, "PI_CODING_AGENT_DIR") ?? join(world.home, ".pi", "agent");
}
