// Where Gemini CLI keeps its user settings: `<GEMINI_CLI_HOME or HOME>/.gemini/settings.json`. GEMINI_CLI_HOME stands
// for the home directory, not for .gemini (its Storage.getGlobalGeminiDir, 0.61.0).
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function geminiSettingsPath(world: InstallContext): string {
  return join(envDir(world, "GEMINI_CLI_HOME") ?? world.home, ".gemini", "settings.json");
}
