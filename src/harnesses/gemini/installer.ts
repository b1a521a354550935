// Gemini CLI's installer: our command hooks under "hooks" in its settings.json. Its hook timeouts are milliseconds.
// BeforeTool fires before the approval dialog, which fires Notification `ToolPermission`; no event states a failed
// turn (a provider error ends with AfterAgent), so Gemini sessions never show `error` (docs/harness-facts.md).
// 0.61.0 runs each hook's command with `bash -c` on Linux, reads settings.json with comments and without trailing
// commas, and `gemini mcp add -s user` writes the `mcpServers` entry install writes (src/install/settings-hooks.ts).
import type { HookSpec } from "../../install/hook-entries.ts";
import { settingsHooksInstaller } from "../../install/settings-hooks.ts";
import { geminiHarness } from "./harness.ts";
import { geminiSettingsPath } from "./locations.ts";

export const GEMINI_HOOKS: readonly HookSpec[] = [
  { event: "SessionStart", alias: "session-start", timeout: 5000 },
  { event: "BeforeAgent", alias: "prompt-submit", timeout: 5000 },
  { event: "BeforeTool", alias: "tool-use", timeout: 5000 },
  { event: "AfterTool", alias: "tool-done", timeout: 5000 },
  { event: "Notification", alias: "notification", timeout: 5000 },
  { event: "AfterAgent", alias: "stop", timeout: 5000 },
  { event: "SessionEnd", alias: "session-end", timeout: 5000 },
];

export const installer = settingsHooksInstaller({
  id: "gemini",
  displayName: geminiHarness.displayName,
  binary: "gemini",
  installHint: "npm install -g @google/gemini-cli",
  hooks: GEMINI_HOOKS,
  settingsPath: geminiSettingsPath,
});
