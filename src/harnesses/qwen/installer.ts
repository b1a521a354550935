// Qwen Code's installer: our command hooks under "hooks" in its settings.json (Claude's shape; timeouts in seconds).
// Qwen fires PermissionRequest before PreToolUse, so PreToolUse means the user allowed the tool ("tool-approved").
// Qwen is a Gemini CLI fork: 0.24.4 runs each hook's command with `bash -c` on Linux, reads settings.json with comments
// and without trailing commas, and `qwen mcp add -s user` writes the `mcpServers` entry install writes.
import type { HookSpec } from "../../install/hook-entries.ts";
import { settingsHooksInstaller } from "../../install/settings-hooks.ts";
import { qwenHarness } from "./harness.ts";
import { qwenSettingsPath } from "./locations.ts";

export const QWEN_HOOKS: readonly HookSpec[] = [
  { event: "SessionStart", alias: "session-start", timeout: 5 },
  { event: "UserPromptSubmit", alias: "prompt-submit", timeout: 5 },
  { event: "PreToolUse", alias: "tool-approved", timeout: 5 },
  { event: "PostToolUse", alias: "tool-done", timeout: 5 },
  { event: "PostToolUseFailure", alias: "tool-failed", timeout: 5 },
  { event: "PermissionRequest", alias: "permission-request", timeout: 5 },
  { event: "Notification", alias: "notification", timeout: 5 },
  { event: "Stop", alias: "stop", timeout: 5 },
  { event: "StopFailure", alias: "stop-failure", timeout: 5 },
  { event: "SessionEnd", alias: "session-end", timeout: 5 },
  { event: "PreCompact", alias: "compact-start", timeout: 5 },
  { event: "PostCompact", alias: "compact-end", timeout: 5 },
  { event: "SubagentStart", alias: "subagent-start", timeout: 5 },
  { event: "SubagentStop", alias: "subagent-stop", timeout: 5 },
];

export const installer = settingsHooksInstaller({
  id: "qwen",
  displayName: qwenHarness.displayName,
  binary: "qwen",
  installHint: "npm install -g @qwen-code/qwen-code",
  hooks: QWEN_HOOKS,
  settingsPath: qwenSettingsPath,
});
