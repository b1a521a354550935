// Claude Code: command hooks in settings.json, identity from the hook's process ancestry.
import type { Harness } from "../contract.ts";

export const claudeHarness = {
  id: "claude",
  displayName: "Claude Code",
  processNames: ["claude", "claude.exe"],
  events: [
    "session-start",
    "prompt-submit",
    "tool-use",
    "tool-done",
    "tool-failed",
    "permission-request",
    "notification",
    "stop",
    "stop-failure",
    "elicitation",
    "session-end",
  ],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus", "stated"],
  installHelp: "hooks in settings.json, the MCP server with `claude mcp add`",
  installByDefault: true,
} as const satisfies Harness;
