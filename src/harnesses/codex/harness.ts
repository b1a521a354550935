// Codex CLI: command hooks in $CODEX_HOME/hooks.json, identity from the hook's process ancestry; its shared app-server
// daemon hosts several UIs' sessions, so a terminal captured under it proves nothing: at focus time, the UI that
// shows such a session is looked for from exact evidence (locate-ui.ts).
import type { Harness } from "../contract.ts";
import { locateCodexUi } from "./locate-ui.ts";

const isSharedDaemon = (argv: readonly string[]) => argv.includes("app-server");

export const codexHarness = {
  id: "codex",
  displayName: "Codex CLI",
  processNames: ["codex"],
  events: [
    "session-start",
    "prompt-submit",
    "tool-use",
    "tool-done",
    "permission-request",
    "stop",
    "interrupt",
    "session-end",
    "compact-start",
    "compact-end",
    "subagent-start",
    "subagent-stop",
  ],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus", "stated"],
  installHelp: "hooks in hooks.json, the MCP server in config.toml",
  installByDefault: true,
  installOptions: [
    { name: "trust-codex-hooks", help: "record trust for our Codex hooks the way Codex does (else approve them in Codex's /hooks)" },
  ],
  reports: {
    started: { by: "hook", limit: "the interactive UI fires nothing before its first prompt (listed as discovered until then)" },
    running: { by: "hook" },
    tool: { by: "hook" },
    waiting: { by: "hook" },
    idle: { by: "hook" },
    // No hook fires on an API error: codex/stated.ts reads the task_complete error Codex writes in its rollout.
    error: { by: "stated", from: "the task_complete error in its rollout", limit: "seen only when its rollout is readable" },
    interrupted: { by: "hook" },
    ended: { by: "hook", limit: "a UI under the shared daemon fires no SessionEnd when it quits (start it with --no-daemon)" },
  },
  provenVersions: ["0.171.0"],
  isSharedDaemon,
  locateUi: (session, world) => locateCodexUi(session, world, isSharedDaemon),
} as const satisfies Harness;
