// Qwen Code (a Gemini CLI fork with Claude-shaped hooks): command hooks in its settings.json, identity from the hook's
// process ancestry. `qwen` runs `node .../cli-entry.js`, which relaunches `node --expose-gc .../cli.js`; the hooks
// run under the innermost of those (process name `node`, no title), known by its script.
import type { Harness } from "../contract.ts";

export const qwenHarness = {
  id: "qwen",
  displayName: "Qwen Code",
  processNames: [],
  nodeScripts: ["node_modules/@qwen-code/qwen-code/cli.js", "node_modules/@qwen-code/qwen-code/cli-entry.js"],
  events: [
    "session-start",
    "prompt-submit",
    "tool-approved",
    "tool-done",
    "tool-failed",
    "permission-request",
    "notification",
    "stop",
    "stop-failure",
    "session-end",
    "compact-start",
    "compact-end",
    "subagent-start",
    "subagent-stop",
  ],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus"],
  installHelp: "hooks and the MCP server in settings.json",
  reports: {
    started: { by: "hook" },
    running: { by: "hook" },
    tool: { by: "hook" },
    waiting: { by: "hook" },
    idle: { by: "hook" },
    error: { by: "hook", limit: "only the interactive UI fires StopFailure; a failed `qwen -p` turn states nothing" },
    interrupted: {
      by: "none",
      why: 'Esc fires no Stop; the Notification Qwen sends once its input is back makes the record idle, "waiting for the next prompt" (live, 0.24.4), without saying the turn was interrupted',
    },
    ended: { by: "hook" },
  },
  provenVersions: ["0.24.4"],
} as const satisfies Harness;
