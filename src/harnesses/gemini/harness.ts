// Gemini CLI: command hooks in its settings.json, identity from the hook's process ancestry. It runs as
// `node .../@google/gemini-cli/bundle/gemini.js` (process name `node`, no title), so it is known by that script.
import type { Harness } from "../contract.ts";

export const geminiHarness = {
  id: "gemini",
  displayName: "Gemini CLI",
  processNames: [],
  nodeScripts: ["node_modules/@google/gemini-cli/bundle/gemini.js"],
  events: ["session-start", "prompt-submit", "tool-use", "tool-done", "notification", "stop", "session-end"],
  identity: "process-ancestry",
  capabilities: ["hooks", "discovery", "focus"],
  installHelp: "hooks and the MCP server in settings.json",
  reports: {
    started: { by: "hook" },
    running: { by: "hook" },
    tool: { by: "hook" },
    waiting: { by: "hook", limit: "its approval notification names no tool: the record says `permission requested`" },
    idle: { by: "hook" },
    error: { by: "none", why: "no hook states a failed turn: a provider error ends the turn idle, never error" },
    interrupted: {
      by: "none",
      why: "Esc ends the turn with AfterAgent, as any turn's end does (live, 0.61.0): the record goes idle without saying the turn was interrupted",
    },
    ended: { by: "hook" },
  },
  provenVersions: ["0.61.0"],
} as const satisfies Harness;
