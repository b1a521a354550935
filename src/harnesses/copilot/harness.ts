// GitHub Copilot CLI: command hooks in $COPILOT_HOME/hooks/tongs-agents.json, identity from the hook's process
// ancestry. Its npm bin is a Node loader that spawns a native binary and waits; hooks run under that binary, whose
// executable is named `copilot` (its comm is `MainThread`, the loader's argv[0] is `node`: neither is evidence).
// Its payloads name fields in camelCase (observed, 1.0.102; docs/harness-facts.md).
import { join } from "node:path";
import type { Harness } from "../contract.ts";

export const copilotHarness = {
  id: "copilot",
  displayName: "Copilot CLI",
  processNames: ["copilot"],
  events: [
    "session-start",
    "prompt-submit",
    "tool-use",
    "tool-done",
    "tool-failed",
    "notification",
    "stop",
    "error-occurred",
    "session-end",
  ],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus", "stated"],
  installHelp: "hooks in hooks/tongs-agents.json, the MCP server in mcp-config.json",
  reports: {
    started: { by: "hook", limit: "the interactive UI fires sessionStart only at the first prompt (listed as discovered until then)" },
    running: { by: "hook" },
    tool: { by: "hook" },
    waiting: { by: "hook", limit: "its notification names no tool: the record says `permission requested`" },
    idle: { by: "hook" },
    error: { by: "hook", limit: "only a failed model call (errorOccurred `model_call`) counts as a failed turn" },
    interrupted: {
      by: "stated",
      from: "the abort line in its session's events.jsonl",
      limit: "Ctrl+C cancels a turn; Esc is not taken while Copilot waits for the model",
    },
    ended: { by: "hook" },
  },
  provenVersions: ["1.0.102"],
  nativeFields: { sessionId: "session_id", toolName: "tool_name", transcriptPath: "transcript_path", errorContext: "error_context" },
  // Only agentStop names the session's events file; the other events find it where Copilot keeps it, under $COPILOT_HOME
  // (default ~/.copilot), by the session's id (1.0.102). copilot/stated.ts reads it.
  transcriptPathOf: (sessionId, env) =>
    /^[A-Za-z0-9-]{1,128}$/.test(sessionId)
      ? join(env.COPILOT_HOME || join(env.HOME ?? "", ".copilot"), "session-state", sessionId, "events.jsonl")
      : undefined,
} as const satisfies Harness;
