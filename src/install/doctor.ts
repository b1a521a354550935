// tongs-agents doctor: per harness, is it installed (binary on PATH, version), are our hooks present and current, is
// the MCP server registered, is anything left from claude-fleet-monitor, and what must the user still do.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CLAUDE_HOOKS } from "../harnesses/claude/install.ts";
import { CODEX_HOOKS, ourTrustRecords, trustStatus } from "../harnesses/codex/install.ts";
import { readConfigFile } from "./file-edit.ts";
import { scanHooks, type HookSpec } from "./hook-entries.ts";
import { PROVIDERS } from "./installer.ts";
import { parseJsonDocument } from "./json-text.ts";
import { claudeJsonPath, claudeSettingsPath, codexHome, codexHomeCanonical, piAgentDir } from "./locations.ts";
import { LEGACY_MCP_NAME, MCP_NAME, isLegacyFleetMcp, mcpState, type McpState } from "./mcp-entry.ts";
import { type HarnessId } from "./plan.ts";
import { PI_MARKER_FILE, piPackagePaths, readMarker } from "../harnesses/pi/install.ts";
import { parseTomlDocument } from "./toml-text.ts";
import { ourPaths, which, type InstallWorld } from "./world.ts";
import { isRecord } from "../core/json-value.ts";

export type HookStatus = "current" | "outdated" | "modified" | "missing";

export interface HookCheck {
  readonly event: string;
  readonly alias: string;
  readonly status: HookStatus;
  readonly trust?: "trusted" | "untrusted" | "modified" | "disabled";
}

export interface HarnessDoctor {
  readonly harness: HarnessId;
  readonly binary: string | null;
  readonly version: string | null;
  readonly hooks: readonly HookCheck[];
  readonly mcp: McpState | "unknown" | "n/a";
  /** Pi: whether our bridge package is installed and recorded. */
  readonly bridge?: "installed" | "missing" | "outdated" | "unowned";
  readonly problems: readonly string[];
  readonly legacy: readonly string[];
  readonly todo: readonly string[];
  readonly ok: boolean;
}

export interface DoctorReport {
  readonly node: { readonly path: string; readonly version: string; readonly ok: boolean };
  readonly package_root: string;
  readonly harnesses: readonly HarnessDoctor[];
  readonly ok: boolean;
}

async function versionOf(world: InstallWorld, binary: string | undefined, env: NodeJS.ProcessEnv = world.env): Promise<string | null> {
  if (!binary) return null;
  const result = await world.exec(binary, ["--version"], { env, timeoutMs: 15_000 });
  const line = `${result.stdout}`.trim().split("\n")[0] ?? "";
  return result.exitCode === 0 && line ? line : null;
}

function jsonData(path: string, problems: string[]): Record<string, unknown> | undefined {
  const read = readConfigFile(path);
  if (!read.ok) {
    problems.push(read.detail);
    return undefined;
  }
  const doc = parseJsonDocument(read.text ?? "");
  if (!doc.ok) {
    problems.push(`${path} is ${doc.detail}`);
    return undefined;
  }
  return doc.data;
}

function hookChecks(data: Record<string, unknown> | undefined, specs: readonly HookSpec[], world: InstallWorld, harness: string, legacy: string[], problems: string[], label: string, nodes: Set<string>): HookCheck[] {
  const paths = ourPaths(world);
  const refs = data ? scanHooks(data, specs, { node: paths.node, hook: paths.hook, harness }) : [];
  const missing = new Set<string>();
  for (const ref of refs) if (ref.entry.kind === "ours") for (const file of [ref.entry.command.node, ref.entry.command.hook]) if (!existsSync(file)) missing.add(file);
  for (const file of missing) problems.push(`${label}: our hooks run ${file}, which does not exist (the hooks fail until you run install again)`);
  for (const ref of refs) if (ref.entry.kind === "ours" && existsSync(ref.entry.command.node)) nodes.add(ref.entry.command.node);
  if (refs.some((ref) => ref.entry.kind === "legacy")) legacy.push(`${label}: claude-fleet-monitor hooks (claude-fleet-hook)`);
  return specs.map((spec) => {
    const mine = refs.filter((ref) => ref.event === spec.event);
    const ours = mine.find((ref) => ref.entry.kind === "ours");
    const status: HookStatus = ours?.entry.kind === "ours" ? (ours.entry.current ? "current" : "outdated") : mine.some((ref) => ref.entry.kind === "modified") ? "modified" : "missing";
    return { event: spec.event, alias: spec.alias, status };
  });
}

function hooksTodo(hooks: readonly HookCheck[], command: string, todo: string[]): void {
  if (hooks.some((hook) => hook.status === "missing" || hook.status === "outdated")) todo.push(`Run \`${command}\` to add or update the hooks.`);
  if (hooks.some((hook) => hook.status === "modified")) todo.push("Some hook entries that run tongs-agents-hook were changed by hand: fix or remove them (install lists them).");
}

/** The Node each hook runs must be 22 or newer: on an older one the hook does nothing (it fails open). */
async function checkNodes(world: InstallWorld, nodes: Set<string>, problems: string[]): Promise<void> {
  for (const node of nodes) {
    if (node === world.nodePath) continue;
    const version = await versionOf(world, node);
    const major = Number(/^v(\d+)\./.exec(version ?? "")?.[1] ?? 0);
    if (major < 22) problems.push(`our hooks run ${node} (${version ?? "version unknown"}): the hook needs Node 22 or newer; run install again with Node 22`);
  }
}

async function claudeDoctor(world: InstallWorld): Promise<HarnessDoctor> {
  const binary = which("claude", world.env);
  const nodes = new Set<string>();
  const problems: string[] = [];
  const legacy: string[] = [];
  const todo: string[] = [];
  const settings = jsonData(claudeSettingsPath(world), problems);
  const hooks = hookChecks(settings, CLAUDE_HOOKS, world, "claude", legacy, problems, claudeSettingsPath(world), nodes);
  if (settings && isRecord(settings.mcpServers) && isLegacyFleetMcp(settings.mcpServers[LEGACY_MCP_NAME])) legacy.push(`${claudeSettingsPath(world)}: claude-fleet-monitor MCP server "fleet"`);
  const claudeJson = jsonData(claudeJsonPath(world), problems);
  const paths = ourPaths(world);
  const servers = claudeJson && isRecord(claudeJson.mcpServers) ? claudeJson.mcpServers : {};
  const mcp = claudeJson ? mcpState(servers[MCP_NAME], { command: paths.node, args: [paths.cli, "mcp"] }, ["type", "command", "args", "env"]) : "unknown";
  if (isLegacyFleetMcp(servers[LEGACY_MCP_NAME])) legacy.push(`${claudeJsonPath(world)}: claude-fleet-monitor MCP server "fleet"`);
  await checkNodes(world, nodes, problems);
  if (!binary) todo.push("Install Claude Code (npm install -g @anthropic-ai/claude-code), or put claude on PATH.");
  hooksTodo(hooks, "tongs-agents install --agent claude", todo);
  if (mcp === "absent" || mcp === "outdated") todo.push("Run `tongs-agents install --agent claude` to register the MCP server.");
  if (legacy.length > 0) todo.push("Run `tongs-agents install --agent claude` to remove what claude-fleet-monitor left (docs/migration.md).");
  return { harness: "claude", binary: binary ?? null, version: await versionOf(world, binary), hooks, mcp, problems, legacy, todo, ok: todo.length === 0 && problems.length === 0 };
}

async function codexDoctor(world: InstallWorld): Promise<HarnessDoctor> {
  const binary = which("codex", world.env);
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
  const records = data ? ourTrustRecords(data, { node: paths.node, hook: paths.hook, harness: "codex" }, join(codexHomeCanonical(world), "hooks.json"), false) : [];
  const hooks = hookChecks(data, CODEX_HOOKS, world, "codex", legacy, problems, hooksPath, nodes).map((hook) => {
    const record = records.find((candidate) => candidate.event === hook.event);
    return record && configData ? { ...hook, trust: trustStatus(configData, record) } : hook;
  });
  const servers = configData && isRecord(configData.mcp_servers) ? configData.mcp_servers : {};
  const mcp = configData ? mcpState(servers[MCP_NAME], { command: paths.node, args: [paths.cli, "mcp"] }, ["command", "args"]) : "unknown";
  if (isLegacyFleetMcp(servers[LEGACY_MCP_NAME])) legacy.push(`${configPath}: claude-fleet-monitor MCP server [mcp_servers.fleet]`);
  await checkNodes(world, nodes, problems);
  if (!binary) todo.push("Install Codex (npm install -g @openai/codex), or put codex on PATH.");
  hooksTodo(hooks, "tongs-agents install --agent codex", todo);
  if (hooks.some((hook) => hook.trust === "untrusted" || hook.trust === "modified")) todo.push("Trust our hooks in Codex: approve them in codex's /hooks, or run `tongs-agents install --agent codex --trust-codex-hooks`.");
  if (mcp === "absent" || mcp === "outdated") todo.push("Run `tongs-agents install --agent codex` to register the MCP server.");
  if (legacy.length > 0) todo.push("Run `tongs-agents install --agent codex` to remove what claude-fleet-monitor left (docs/migration.md).");
  const features = configData && isRecord(configData.features) ? configData.features : {};
  const advice = features.daemon_auto_start === false ? [] : ["Codex's shared app-server daemon runs hooks with the first UI's environment: start codex with --no-daemon or set [features] daemon_auto_start = false (docs/install.md)."];
  return { harness: "codex", binary: binary ?? null, version: await versionOf(world, binary), hooks, mcp, problems, legacy, todo: [...todo, ...advice], ok: todo.length === 0 && problems.length === 0 };
}

async function piDoctor(world: InstallWorld): Promise<HarnessDoctor> {
  const binary = which("pi", world.env);
  const problems: string[] = [];
  const todo: string[] = [];
  const legacy: string[] = [];
  const agentDir = piAgentDir(world);
  const marker = readMarker(join(agentDir, PI_MARKER_FILE));
  const installed = piPackagePaths(agentDir);
  const paths = ourPaths(world);
  let bridge: HarnessDoctor["bridge"] = "missing";
  if (!marker.ok) {
    bridge = "unowned";
    problems.push(marker.detail);
  } else if (marker.marker) {
    const listed = installed.ok && installed.paths.includes(marker.marker.extension_path);
    bridge = !listed ? "missing" : marker.marker.extension_path === paths.piBridge && marker.marker.hook_path === paths.hook && marker.marker.node_path === paths.node ? "installed" : "outdated";
  }
  if (!installed.ok) problems.push(installed.detail);
  if (existsSync(join(agentDir, "claude-fleet-monitor.json"))) legacy.push(`${join(agentDir, "claude-fleet-monitor.json")}: claude-fleet-monitor's Pi extension (remove it with \`claude-fleet uninstall --agent pi\`)`);
  if (!binary) todo.push("Install Pi (npm install -g @earendil-works/pi-coding-agent), or put pi on PATH.");
  if (bridge === "missing" || bridge === "outdated") todo.push("Run `tongs-agents install --agent pi` to install or update the Pi bridge.");
  const env = { ...world.env, PI_OFFLINE: "1" };
  return { harness: "pi", binary: binary ?? null, version: await versionOf(world, binary, env), hooks: [], mcp: "n/a", bridge, problems, legacy, todo: [...todo, ...legacy.map(() => "Remove claude-fleet-monitor's Pi extension (docs/migration.md).")], ok: todo.length === 0 && problems.length === 0 };
}

const DOCTORS: Readonly<Record<HarnessId, (world: InstallWorld) => Promise<HarnessDoctor>>> = { claude: claudeDoctor, codex: codexDoctor, pi: piDoctor };

export async function runDoctor(world: InstallWorld, harnesses: readonly HarnessId[] = Object.keys(PROVIDERS) as HarnessId[]): Promise<DoctorReport> {
  const major = Number(world.nodeVersion.split(".")[0]);
  const reports = [];
  for (const id of harnesses) reports.push(await DOCTORS[id](world));
  // Not installing a harness is a choice, not a fault: the report is not ok only when something is broken.
  const ok = major >= 22 && reports.every((report) => report.problems.length === 0);
  return { node: { path: world.nodePath, version: world.nodeVersion, ok: major >= 22 }, package_root: world.packageRoot, harnesses: reports, ok };
}
