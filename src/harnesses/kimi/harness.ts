// Kimi Code CLI: command hooks as `[[hooks]]` tables in $KIMI_CODE_HOME/config.toml, identity from the hook's process
// ancestry. It runs as `node .../dist/main.mjs` and sets its process title: comm `kimi-code`.
import type { Harness } from "../contract.ts";

export const kimiHarness = {
  id: "kimi",
  displayName: "Kimi Code",
  processNames: ["kimi-code"],
  events: [
    "session-start",
    "prompt-submit",
    "tool-use",
    "tool-done",
    "tool-failed",
    "permission-request",
    "stop",
    "stop-failure",
    "interrupt",
    "session-end",
  ],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus"],
  installHelp: "[[hooks]] tables in config.toml, the MCP server in mcp.json",
  reports: {
    started: {
      by: "hook",
      limit: "the interactive UI (and a resumed session) fires SessionStart only at its first prompt (listed as discovered until then)",
    },
    running: { by: "hook" },
    tool: { by: "hook" },
    waiting: { by: "hook" },
    idle: { by: "hook" },
    error: { by: "hook" },
    interrupted: { by: "hook" },
    ended: { by: "hook", limit: "`kimi -p` fires no SessionEnd: its record turns stale once the process is gone" },
  },
  provenVersions: ["2.1.0"],
} as const satisfies Harness;
