// Cline CLI: command hooks as executables named after the event in $CLINE_DIR/hooks, identity from the hook's process
// ancestry. Cline 3.0.65 (a native binary, comm `cline`) spawns the hooks from the process that runs the session: the
// UI itself when no hub daemon ran as it started, else its hub daemon (`cline --cline-hub-daemon`, shared by every UI
// of that user), whose terminal is the one of whichever UI started it and so proves nothing (docs/harness-facts.md).
import type { Harness } from "../contract.ts";

const isSharedDaemon = (argv: readonly string[]) => argv.includes("--cline-hub-daemon");

export const clineHarness = {
  id: "cline",
  displayName: "Cline",
  processNames: ["cline"],
  events: ["prompt-submit", "tool-use", "tool-done", "stop", "stop-failure", "interrupt"],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus"],
  installHelp: "hook scripts in $CLINE_DIR/hooks, the MCP server in cline_mcp_settings.json",
  reports: {
    started: {
      by: "none",
      why: "TaskStart fires with every prompt, not once per session: the record begins running at the first prompt",
    },
    running: { by: "hook" },
    tool: { by: "hook", limit: "the tool's name is nested in Cline's payload and not read: shown as a tool without its name" },
    waiting: {
      by: "none",
      why: "Cline has no permission hook, and its task files are not read: an approval dialog is not visible",
    },
    idle: { by: "hook" },
    error: { by: "hook" },
    interrupted: { by: "hook", limit: "Esc fires SessionShutdown, and the session goes on: read as the turn interrupted" },
    ended: {
      by: "none",
      why: "/exit fires no hook: a session the UI ran shows ended only once its process is gone (stale); one Cline's hub daemon ran outlives the UI",
    },
  },
  provenVersions: ["3.0.65"],
  isSharedDaemon,
  // The session id Cline lists (`cline history`), prints at /exit (`Continue  cline --id <id>`) and resumes with `--id`;
  // a new one after /clear. Its `taskId` is per process: a resumed session gets a new one (docs/harness-facts.md).
  nativeFields: { "sessionContext.rootSessionId": "session_id" },
  hookCwdIsSession: true,
} as const satisfies Harness;
