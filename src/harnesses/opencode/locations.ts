// Where OpenCode keeps its global configuration, resolved the way OpenCode 1.18.33 resolves it: `$XDG_CONFIG_HOME/opencode`
// (default ~/.config/opencode). It loads every `{plugin,plugins}/*.{ts,js}` there at start-up.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function opencodeConfigDir(world: InstallContext): string {
  return join(envDir(world, "XDG_CONFIG_HOME") ?? join(world.home, ".config"), "opencode");
}

/** The one file the installer owns: a small module in OpenCode's plugin directory. */
export function opencodePluginFile(world: InstallContext): string {
  return join(opencodeConfigDir(world), "plugin", "tongs-agents.js");
}
