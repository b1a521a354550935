// doctor for Claude Code: the binary, our hooks in settings.json, the MCP server in .claude.json, claude-fleet-monitor leftovers.
import { checkNodes, doctorReport, hookChecks, hooksTodo, jsonData } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import { LEGACY_MCP_NAME, MCP_NAME, isLegacyFleetMcp, mcpState } from "../../install/mcp-entry.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { isRecord } from "../../core/json-value.ts";
import { CLAUDE_HOOKS } from "./install.ts";
import { claudeJsonPath, claudeSettingsPath } from "./locations.ts";

export async function claudeDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const nodes = new Set<string>();
  const problems: string[] = [];
  const legacy: string[] = [];
  const todo: string[] = [];
  const settings = jsonData(claudeSettingsPath(world), problems);
  const hooks = hookChecks(settings, CLAUDE_HOOKS, world, "claude", legacy, problems, claudeSettingsPath(world), nodes);
  if (settings && isRecord(settings.mcpServers) && isLegacyFleetMcp(settings.mcpServers[LEGACY_MCP_NAME]))
    legacy.push(`${claudeSettingsPath(world)}: claude-fleet-monitor MCP server "fleet"`);
  const claudeJson = jsonData(claudeJsonPath(world), problems);
  const paths = ourPaths(world);
  const servers = claudeJson && isRecord(claudeJson.mcpServers) ? claudeJson.mcpServers : {};
  const mcp = claudeJson
    ? mcpState(servers[MCP_NAME], { command: paths.node, args: [paths.cli, "mcp"] }, ["type", "command", "args", "env"])
    : "unknown";
  if (isLegacyFleetMcp(servers[LEGACY_MCP_NAME])) legacy.push(`${claudeJsonPath(world)}: claude-fleet-monitor MCP server "fleet"`);
  await checkNodes(world, nodes, problems);
  hooksTodo(hooks, "tongs-agents install --agent claude", todo);
  if (mcp === "absent" || mcp === "outdated") todo.push("Run `tongs-agents install --agent claude` to register the MCP server.");
  if (legacy.length > 0)
    todo.push("Run `tongs-agents install --agent claude` to remove what claude-fleet-monitor left (docs/migration.md).");
  return doctorReport(world, {
    harness: "claude",
    program: { displayName: "Claude Code", binary: "claude", installHint: "npm install -g @anthropic-ai/claude-code" },
    hooks,
    mcp,
    problems,
    legacy,
    todo,
  });
}
