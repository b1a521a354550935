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
  events: ["session-start", "prompt-submit", "tool-use", "tool-done", "permission-request", "stop", "interrupt", "session-end"],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus", "stated"],
  installHelp: "hooks in hooks.json, the MCP server in config.toml",
  installByDefault: true,
  installOptions: [
    { name: "trust-codex-hooks", help: "record trust for our Codex hooks the way Codex does (else approve them in Codex's /hooks)" },
  ],
  isSharedDaemon,
  locateUi: (session, world) => locateCodexUi(session, world, isSharedDaemon),
} as const satisfies Harness;
