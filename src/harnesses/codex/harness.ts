// Codex CLI: command hooks in $CODEX_HOME/hooks.json, identity from the hook's process ancestry; its shared app-server
// daemon hosts several UIs' sessions, so a terminal captured under it proves nothing.
import type { Harness } from "../contract.ts";

export const codexHarness = {
  id: "codex",
  displayName: "Codex CLI",
  processNames: ["codex"],
  events: ["session-start", "prompt-submit", "tool-use", "tool-done", "permission-request", "stop", "interrupt", "session-end"],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus"],
  isSharedDaemon: (argv) => argv.includes("app-server"),
} as const satisfies Harness;
