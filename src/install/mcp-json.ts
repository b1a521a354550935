// Our MCP server entry in a JSON config that the installer edits as text (Gemini CLI's and Qwen Code's settings.json
// `mcpServers`, Copilot CLI's mcp-config.json `mcpServers`, OpenCode's opencode.json `mcp`). Each harness gives its
// format: where the servers live and the exact entry it reads for `<node> <.../bin/tongs-agents.js> mcp`. The entry is
// ours when it has exactly that shape (any node and package path: a moved installation is rewritten in place);
// anything else under our name was written or changed by someone else and is left as it is. Uninstall removes our
// entry, and the servers object too when our entry was the last thing in it (install may have created it), unless the
// user had it there empty before install.
import { isDeepStrictEqual } from "node:util";
import { basename, isAbsolute } from "node:path";
import { isRecord } from "../core/json-value.ts";
import { MCP_NAME, type McpState } from "./mcp-entry.ts";
import { readConfigFile } from "./file-edit.ts";
import { parseJsonDocument, removeJsonValue, setJsonValue, type JsonDialect, type JsonStyle } from "./json-text.ts";
import { conflict, error, warning, type Finding, type Step } from "./plan.ts";
import type { Intent } from "./provider.ts";

export interface McpCommand {
  readonly command: string;
  readonly args: readonly string[];
}

export interface McpJsonFormat {
  /** What the harness reads in the file (json-text.ts): the installer edits such a file keeping its comments. */
  readonly dialect: JsonDialect;
  /** The top-level key holding the servers by name. */
  readonly container: string;
  /** The entry install writes for this command, as the harness's own `mcp add` writes it. */
  readonly entry: (server: McpCommand) => Record<string, unknown>;
  /** The command an entry runs, when it has the shape `entry` writes (whatever the paths); else undefined. */
  readonly command: (entry: Record<string, unknown>) => McpCommand | undefined;
}

/** The `command` + `args` shape shared by Gemini CLI, Qwen Code and Copilot CLI. */
export const commandAndArgs = (entry: Record<string, unknown>): McpCommand | undefined =>
  typeof entry.command === "string" && Array.isArray(entry.args) && entry.args.every((arg) => typeof arg === "string")
    ? { command: entry.command, args: entry.args as string[] }
    : undefined;

/** Whose entry this is: ours (current for `desired`, or outdated paths), absent, or someone else's. */
export function mcpJsonState(entry: unknown, format: McpJsonFormat, desired: McpCommand): McpState {
  if (entry === undefined) return "absent";
  if (!isRecord(entry)) return "foreign";
  const server = format.command(entry);
  const ours =
    server !== undefined &&
    isAbsolute(server.command) &&
    server.args.length === 2 &&
    isAbsolute(server.args[0] as string) &&
    basename(server.args[0] as string) === "tongs-agents.js" &&
    server.args[1] === "mcp" &&
    isDeepStrictEqual(entry, format.entry(server));
  if (!ours) return "foreign";
  return isDeepStrictEqual(server, { command: desired.command, args: [...desired.args] }) ? "current" : "outdated";
}

/** The servers object of a parsed config (empty when absent), or undefined when the key holds something else. */
export function mcpServersOf(data: Record<string, unknown>, format: McpJsonFormat): Record<string, unknown> | undefined {
  const servers = data[format.container];
  if (servers === undefined) return {};
  return isRecord(servers) ? servers : undefined;
}

export interface McpEdit {
  readonly text: string;
  readonly changes: readonly string[];
  readonly findings: readonly Finding[];
}

/** Install or remove our entry in the config text `text` (parsed as `data`), keeping everything else as it is. */
export function editMcpJson(
  text: string,
  data: Record<string, unknown>,
  style: JsonStyle,
  format: McpJsonFormat,
  desired: McpCommand,
  mode: "install" | "uninstall",
  label: string,
  /** Top-level keys the user had empty before install (Intent.emptyBefore): emptied again, they stay. */
  emptyBefore: ReadonlySet<string> = new Set(),
): McpEdit {
  const where = `${label}: ${format.container}.${MCP_NAME}`;
  const servers = mcpServersOf(data, format);
  if (!servers)
    return { text, changes: [], findings: [error(`${label}: "${format.container}" is not an object; MCP server left unregistered`)] };
  const state = mcpJsonState(servers[MCP_NAME], format, desired);
  const path = [format.container, MCP_NAME];
  if (state === "foreign")
    return {
      text,
      changes: [],
      findings: [
        (mode === "install" ? conflict : warning)(
          `${where} exists but is not what the installer writes (${JSON.stringify(format.entry(desired))}); left as it is`,
        ),
      ],
    };
  if (mode === "install") {
    if (state === "current") return { text, changes: [], findings: [] };
    const after = setJsonValue(text, path, format.entry(desired), style);
    return { text: after, changes: [`${state === "absent" ? "add" : "update"} MCP server ${format.container}.${MCP_NAME}`], findings: [] };
  }
  if (state === "absent") return { text, changes: [], findings: [] };
  let after = removeJsonValue(text, path);
  const changes = [`remove MCP server ${format.container}.${MCP_NAME}`];
  if (Object.keys(servers).length === 1 && !emptyBefore.has(format.container)) {
    after = removeJsonValue(after, [format.container]);
    changes.push(`remove "${format.container}", empty without our server`);
  }
  return { text: after, changes, findings: [] };
}

/** The edit of a config file that holds our entry (and whatever else the harness or the user keeps there), if any. */
export function planMcpFile(
  path: string,
  format: McpJsonFormat,
  desired: McpCommand,
  intent: Intent,
  findings: Finding[],
  /** How a file that cannot be read is reported: a warning where the rest of the harness's install still works. */
  unreadable: (message: string) => Finding = error,
): Step | undefined {
  const read = readConfigFile(path);
  if (!read.ok) {
    findings.push(error(`${read.detail}; left untouched (MCP server not registered)`));
    return undefined;
  }
  if (read.text === null && intent.mode === "uninstall") return undefined;
  const doc = parseJsonDocument(read.text ?? "", format.dialect);
  if (!doc.ok) {
    const advice =
      intent.mode === "install"
        ? `MCP server not registered. Fix it, or add ${JSON.stringify({ [MCP_NAME]: format.entry(desired) })} under "${format.container}" yourself.`
        : `our MCP server, if there, was not removed: remove "${format.container}"."${MCP_NAME}" yourself.`;
    findings.push(unreadable(`${path} is ${doc.detail}; left untouched, ${advice}`));
    return undefined;
  }
  const edit = editMcpJson(doc.text, doc.data, doc.style, format, desired, intent.mode, path, intent.emptyBefore?.(path));
  findings.push(...edit.findings);
  if (edit.changes.length === 0) return undefined;
  return { kind: "write", path, before: read.text, after: edit.text, why: [...edit.changes] };
}

/** Doctor's view of our entry in that file ("unknown" when it cannot be read in its dialect). */
export function mcpFileState(path: string, format: McpJsonFormat, desired: McpCommand): McpState | "unknown" {
  const read = readConfigFile(path);
  if (!read.ok) return "unknown";
  const doc = parseJsonDocument(read.text ?? "", format.dialect);
  const servers = doc.ok ? mcpServersOf(doc.data, format) : undefined;
  return servers ? mcpJsonState(servers[MCP_NAME], format, desired) : "unknown";
}
