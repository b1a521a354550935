// OpenCode's MCP registration: our server under `mcp` in its global opencode.json (or opencode.jsonc), in the shape OpenCode 1.18.33 reads
// for a local server (`opencode mcp list` starts it): `{"mcp": {"tongs-agents": {"type": "local", "command": [<node>,
// <cli>, "mcp"]}}}`; `enabled` is left out (OpenCode's default is on). Its `opencode mcp add` only asks interactively.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { mcpFileState, planMcpFile, type McpCommand, type McpJsonFormat } from "../../install/mcp-json.ts";
import type { McpState } from "../../install/mcp-entry.ts";
import { warning, type Finding, type Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { opencodeConfigDir } from "./locations.ts";

export const OPENCODE_MCP: McpJsonFormat = {
  // OpenCode 1.18.33 parses its config with jsonc-parser, trailing commas allowed.
  dialect: "jsonc",
  container: "mcp",
  entry: ({ command, args }) => ({ type: "local", command: [command, ...args] }),
  command: (entry): McpCommand | undefined => {
    const words = entry.command;
    if (!Array.isArray(words) || words.length === 0 || !words.every((word) => typeof word === "string")) return undefined;
    const [command, ...args] = words as string[];
    return { command: command as string, args };
  },
};

/** The global config files OpenCode 1.18.33 reads and merges (after the legacy config.json), later ones winning. */
export function opencodeConfigFiles(world: InstallContext): readonly string[] {
  return ["opencode.json", "opencode.jsonc"].map((name) => join(opencodeConfigDir(world), name));
}

const desired = (world: InstallContext) => {
  const paths = ourPaths(world);
  return { command: paths.node, args: [paths.cli, "mcp"] };
};

/** Our entry's state in each config file, with the file. */
function states(world: InstallContext): { path: string; state: McpState | "unknown" }[] {
  return opencodeConfigFiles(world).map((path) => ({ path, state: mcpFileState(path, OPENCODE_MCP, desired(world)) }));
}

/**
 * Install edits the file that already holds our entry, else the user's opencode.jsonc when that is the one they keep,
 * else opencode.json (created if needed); uninstall removes our entry from either. A file OpenCode cannot read either
 * costs the MCP server only (a warning).
 */
export function planOpencodeMcp(world: InstallContext, intent: Intent, findings: Finding[]): Step[] {
  const [json, jsonc] = opencodeConfigFiles(world) as [string, string];
  const plan = (path: string) => planMcpFile(path, OPENCODE_MCP, desired(world), intent, findings, warning);
  if (intent.mode === "uninstall") return [plan(json), plan(jsonc)].filter((step) => step !== undefined);
  const holder = states(world).find(({ state }) => state !== "absent" && state !== "unknown")?.path;
  const target = holder ?? (existsSync(jsonc) && !existsSync(json) ? jsonc : json);
  const step = plan(target);
  return step ? [step] : [];
}

/** Doctor's view: the file that holds our entry (or the first that cannot be read), else absent. */
export function opencodeMcpState(world: InstallContext): { path: string; state: McpState | "unknown" } {
  const all = states(world);
  return all.find(({ state }) => state !== "absent") ?? (all[0] as { path: string; state: McpState });
}
