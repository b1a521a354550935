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
    "compact-start",
    "compact-end",
    "subagent-start",
    "subagent-stop",
  ],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus", "stated"],
  installHelp: "hooks in settings.json, the MCP server with `claude mcp add`",
  installByDefault: true,
  reports: {
    started: { by: "hook" },
    running: { by: "hook" },
    tool: { by: "hook" },
    waiting: { by: "hook" },
    idle: { by: "hook" },
    error: {
      by: "hook",
      limit: "`claude -p` was seen to fire StopFailure for a usage limit (a 429) but not for a provider 400: such a turn states nothing",
    },
    // Esc fires no hook (anthropics/claude-code#9516): claude/stated.ts reads what Claude writes instead.
    interrupted: { by: "stated", from: "the interruption line in its transcript, or its sessions/<pid>.json turning idle" },
    ended: { by: "hook", limit: "nothing fires when it is killed or its terminal closes: the record turns stale" },
  },
  provenVersions: ["2.1.332"],
  installOptions: [
    {
      name: "claude-statusline",
      help: "wrap your status line (it shows as before) to read the context window and quota Claude Code states only there",
    },
  ],
} as const satisfies Harness;
