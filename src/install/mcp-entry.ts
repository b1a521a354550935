// Our MCP server registration, and claude-fleet-monitor's, as they appear in harness configs.
import { basename, isAbsolute } from "node:path";
import { isRecord } from "../core/json-value.ts";

export const MCP_NAME = "tongs-agents";
/** claude-fleet-monitor 0.9.x registered `fleet`: `<python> -m claude_fleet_monitor.mcp_server`. */
export const LEGACY_MCP_NAME = "fleet";

export type McpState = "absent" | "current" | "outdated" | "foreign";

/** Ours: `<absolute node> <absolute .../bin/tongs-agents.js> mcp`, with only the keys the installer writes. */
export function mcpState(entry: unknown, desired: { command: string; args: readonly string[] }, allowedKeys: readonly string[]): McpState {
  if (entry === undefined) return "absent";
  if (!isRecord(entry)) return "foreign";
  const { command, args } = entry;
  const shaped =
    typeof command === "string" &&
    isAbsolute(command) &&
    Array.isArray(args) &&
    args.length === 2 &&
    typeof args[0] === "string" &&
    isAbsolute(args[0]) &&
    basename(args[0]) === "tongs-agents.js" &&
    args[1] === "mcp" &&
    Object.keys(entry).every((key) => allowedKeys.includes(key)) &&
    (entry.type === undefined || entry.type === "stdio") &&
    (entry.env === undefined || (isRecord(entry.env) && Object.keys(entry.env).length === 0));
  if (!shaped) return "foreign";
  return command === desired.command && args[0] === desired.args[0] ? "current" : "outdated";
}

export function isLegacyFleetMcp(entry: unknown): boolean {
  return isRecord(entry) && Array.isArray(entry.args) && entry.args.includes("claude_fleet_monitor.mcp_server");
}
