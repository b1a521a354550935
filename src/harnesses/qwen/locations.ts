// Where Qwen Code keeps its user settings: `$QWEN_HOME/settings.json`, else `~/.qwen/settings.json` (QWEN_HOME names
// the .qwen directory itself: its Storage.getGlobalQwenDir, 0.24.4).
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function qwenSettingsPath(world: InstallContext): string {
  return join(envDir(world, "QWEN_HOME") ?? join(world.home, ".qwen"), "settings.json");
}
