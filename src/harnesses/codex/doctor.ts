// doctor for Codex: the binary, our hooks in hooks.json and whether Codex trusts them, the MCP server in config.toml,
// the shared-daemon advice, claude-fleet-monitor leftovers.
import { join } from "node:path";
import { checkNodes, doctorReport, hookChecks, hooksTodo, jsonData } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import { readConfigFile } from "../../install/file-edit.ts";
import { LEGACY_MCP_NAME, MCP_NAME, isLegacyFleetMcp, mcpState } from "../../install/mcp-entry.ts";
import { parseTomlDocument } from "../../install/toml-text.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { isRecord } from "../../core/json-value.ts";
import { CODEX_HOOKS, ourTrustRecords, trustStatus } from "./install.ts";
import { codexHome, codexHomeCanonical } from "./locations.ts";

export async function codexDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const nodes = new Set<string>();
  const problems: string[] = [];
  const legacy: string[] = [];
  const todo: string[] = [];
  const hooksPath = join(codexHome(world), "hooks.json");
  const data = jsonData(hooksPath, problems);
  const paths = ourPaths(world);
  const configPath = join(codexHome(world), "config.toml");
  const configRead = readConfigFile(configPath);
  const config = configRead.ok ? parseTomlDocument(configRead.text ?? "") : undefined;
  if (!configRead.ok) problems.push(configRead.detail);
  else if (config && !config.ok) problems.push(`${configPath} is ${config.detail}`);
  const configData = config?.ok ? config.data : undefined;
  const records = data
    ? ourTrustRecords(data, { node: paths.node, hook: paths.hook, harness: "codex" }, join(codexHomeCanonical(world), "hooks.json"), false)
    : [];
  const hooks = hookChecks(data, CODEX_HOOKS, world, "codex", legacy, problems, hooksPath, nodes).map((hook) => {
    const record = records.find((candidate) => candidate.event === hook.event);
    return record && configData ? { ...hook, trust: trustStatus(configData, record) } : hook;
  });
  const servers = configData && isRecord(configData.mcp_servers) ? configData.mcp_servers : {};
  const mcp = configData ? mcpState(servers[MCP_NAME], { command: paths.node, args: [paths.cli, "mcp"] }, ["command", "args"]) : "unknown";
  if (isLegacyFleetMcp(servers[LEGACY_MCP_NAME])) legacy.push(`${configPath}: claude-fleet-monitor MCP server [mcp_servers.fleet]`);
  await checkNodes(world, nodes, problems);
  hooksTodo(hooks, "tongs-agents install --agent codex", todo);
  if (hooks.some((hook) => hook.trust === "untrusted" || hook.trust === "modified"))
    todo.push("Trust our hooks in Codex: approve them in codex's /hooks, or run `tongs-agents install --agent codex --trust-codex-hooks`.");
  if (mcp === "absent" || mcp === "outdated") todo.push("Run `tongs-agents install --agent codex` to register the MCP server.");
  if (legacy.length > 0)
    todo.push("Run `tongs-agents install --agent codex` to remove what claude-fleet-monitor left (docs/migration.md).");
  const features = configData && isRecord(configData.features) ? configData.features : {};
  const advice =
    features.daemon_auto_start === false
      ? []
      : [
          "Codex's shared app-server daemon runs hooks with the first UI's environment: start codex with --no-daemon or set [features] daemon_auto_start = false (docs/install.md).",
        ];
  return doctorReport(world, {
    harness: "codex",
    program: { displayName: "Codex", binary: "codex", installHint: "npm install -g @openai/codex" },
    hooks,
    mcp,
    problems,
    legacy,
    todo,
    advice,
  });
}
