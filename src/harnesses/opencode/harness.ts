// OpenCode: a plugin in OpenCode's own process (opencode-plugin/) sends normalized events with that process's PID, an
// instance token and a sequence. One OpenCode process hosts several sessions, each its own record; a subagent's child
// session is folded into its root session's record by the plugin (docs/harness-facts.md, "OpenCode").
import { FLEET_EVENT, type Harness } from "../contract.ts";

export const opencodeHarness = {
  id: "opencode",
  displayName: "OpenCode",
  // OpenCode 1.18.33 is one native Bun executable: comm `opencode`, executable `.../opencode-ai/bin/opencode.exe`.
  processNames: ["opencode", "opencode.exe"],
  events: [FLEET_EVENT],
  identity: "emitter-pid",
  capabilities: ["extension", "focus"],
  installHelp: "the plugin in plugin/tongs-agents.js, the MCP server in opencode.json",
  reports: {
    started: { by: "extension" },
    running: { by: "extension" },
    tool: { by: "extension" },
    waiting: { by: "extension" },
    idle: { by: "extension" },
    error: { by: "extension" },
    interrupted: { by: "extension" },
    ended: { by: "none", why: "nothing fires on /exit: a session shows ended only once its process is gone (stale)" },
  },
  provenVersions: ["1.18.33"],
  hostsManySessions: true,
  // OpenCode's bus events and plugin hooks, kebab-cased (the plugin maps them; docs/contract.md).
  emitterEvents: {
    "session-start": ["started"],
    "session-busy": ["running"],
    "session-retry": ["running"],
    "tool-execute-before": ["running"],
    "permission-asked": ["waiting"],
    "permission-replied": ["running"],
    "question-asked": ["waiting"],
    "question-replied": ["running"],
    "session-idle": ["idle"],
    "session-error": ["error"],
    "session-interrupted": ["idle"],
    "session-limited": ["error"],
    "session-deleted": ["ended"],
  },
  // `session.error` whose APIError has status 429: the provider's rate limit (docs/limits.md).
  emitterLimits: { "session-limited": { kind: "rate_limit", stated: "429" } },
  // A permission dialog or a question from the model opens a wait and its reply answers it (the plugin sends the reply once every open request of
  // the session is answered). The start of a session, the end of a turn, an error and deletion close every wait. A
  // busy status or a tool starting while a dialog is open is held back by the plugin, so it never arrives meanwhile.
  emitterWaits: {
    "session-start": "clear",
    "permission-asked": "input",
    "permission-replied": "answered",
    "question-asked": "input",
    "question-replied": "answered",
    "session-idle": "clear",
    "session-error": "clear",
    "session-interrupted": "clear",
    "session-limited": "clear",
    "session-deleted": "clear",
  },
} as const satisfies Harness;
