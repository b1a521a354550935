// Where Cline keeps what the installer touches, as Cline 3.0.65 resolves it (@cline/shared storage): $CLINE_DIR
// (default ~/.cline) with its global hooks directory `hooks/`; its data dir $CLINE_DATA_DIR (default $CLINE_DIR/data),
// whose settings/cline_mcp_settings.json ($CLINE_MCP_SETTINGS_PATH when set) holds the user's MCP servers.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function clineDir(world: InstallContext): string {
  return envDir(world, "CLINE_DIR") ?? join(world.home, ".cline");
}

/** Cline runs every file in this directory named after one of its hook events (any of a few extensions). */
export function clineHooksDir(world: InstallContext): string {
  return join(clineDir(world), "hooks");
}

export function clineMcpPath(world: InstallContext): string {
  return (
    envDir(world, "CLINE_MCP_SETTINGS_PATH") ??
    join(envDir(world, "CLINE_DATA_DIR") ?? join(clineDir(world), "data"), "settings", "cline_mcp_settings.json")
  );
}
