// Claude Code: hooks in settings.json (CLAUDE_CONFIG_DIR or ~/.claude), the MCP server in the user scope of
// .claude.json (through `claude mcp add --scope user` when the CLI is on PATH). Never MCP in settings.json, except
// removing claude-fleet-monitor's `fleet` entry, which 0.9.x put there.
import { editHooks, hooksShapeProblem, type HookSpec } from "../../install/hook-entries.ts";
import { parseJsonDocument, removeJsonValue, setJsonValue } from "../../install/json-text.ts";
import { claudeJsonPath, claudeSettingsPath } from "./locations.ts";
import { LEGACY_MCP_NAME, MCP_NAME, isLegacyFleetMcp, mcpState } from "../../install/mcp-entry.ts";
import { conflict, error, note, warning, type Finding, type HarnessPlan, type Step } from "../../install/plan.ts";
import { readConfigFile } from "../../install/file-edit.ts";
import { ourPaths, which, type InstallContext } from "../../install/context.ts";
import type { Intent } from "../../install/provider.ts";
import { isRecord } from "../../core/json-value.ts";
import { STATUSLINE_OPTION, editStatusline } from "./statusline-install.ts";

export const CLAUDE_HOOKS: readonly HookSpec[] = [
  { event: "SessionStart", alias: "session-start", timeout: 5 },
  { event: "UserPromptSubmit", alias: "prompt-submit", timeout: 5 },
  { event: "PreToolUse", alias: "tool-use", timeout: 5 },
  { event: "PostToolUse", alias: "tool-done", timeout: 5 },
  // Claude Code fires PostToolUse only for a tool that succeeded; a failed one ends a permission wait too.
  { event: "PostToolUseFailure", alias: "tool-failed", timeout: 5 },
  { event: "PermissionRequest", alias: "permission-request", timeout: 5 },
  // The held hook (src/hook/claude-hold.ts, docs/answer.md): beside the state event, a Node process that holds while
  // the dialog is open so `tongs-agents answer` can reply by request; Claude Code runs it alongside the dialog, and
  // ends it at this timeout (it ends itself as soon as the dialog closes). Always a Node process, never the shim.
  { event: "PermissionRequest", alias: "permission-hold", timeout: 600, holds: true },
  { event: "Notification", alias: "notification", timeout: 5 },
  { event: "Stop", alias: "stop", timeout: 5 },
  { event: "StopFailure", alias: "stop-failure", timeout: 5 },
  { event: "Elicitation", alias: "elicitation", timeout: 5 },
  { event: "SessionEnd", alias: "session-end", timeout: 5 },
  { event: "PreCompact", alias: "compact-start", timeout: 5 },
  { event: "PostCompact", alias: "compact-end", timeout: 5 },
  { event: "SubagentStart", alias: "subagent-start", timeout: 5 },
  { event: "SubagentStop", alias: "subagent-stop", timeout: 5 },
];

const MCP_KEYS = ["type", "command", "args", "env"];

function planSettings(world: InstallContext, intent: Intent, findings: Finding[]): Step | undefined {
  const path = claudeSettingsPath(world);
  const read = readConfigFile(path);
  if (!read.ok) {
    findings.push(error(`${read.detail}; left untouched`));
    return undefined;
  }
  const doc = parseJsonDocument(read.text ?? "");
  if (!doc.ok) {
    findings.push(
      error(`${path} is ${doc.detail}; left untouched. Fix it (Claude Code cannot read it either), then run the command again.`),
    );
    return undefined;
  }
  const shape = hooksShapeProblem(doc.data, CLAUDE_HOOKS);
  if (shape) {
    findings.push(error(`${path}: ${shape}; left untouched`));
    return undefined;
  }
  const paths = ourPaths(world);
  try {
    const edit = editHooks(
      doc.text,
      doc.data,
      doc.style,
      CLAUDE_HOOKS,
      { node: paths.node, hook: paths.hook, harness: "claude", mode: paths.hookMode },
      intent.mode,
      path,
      false,
      intent.emptyBefore?.(path),
    );
    for (const problem of edit.problems) findings.push({ severity: problem.severity, message: problem.message });
    const wrapped = editStatusline(
      edit.text,
      doc.data,
      doc.style,
      { mode: intent.mode, wanted: intent.options.includes(STATUSLINE_OPTION), node: paths.node, packageRoot: world.packageRoot },
      findings,
    );
    let text = wrapped.text;
    const why = [...edit.changes, ...wrapped.why];
    const servers = doc.data.mcpServers;
    if (intent.mode === "install" && isRecord(servers) && isLegacyFleetMcp(servers[LEGACY_MCP_NAME])) {
      text =
        Object.keys(servers).length === 1 ? removeJsonValue(text, ["mcpServers"]) : removeJsonValue(text, ["mcpServers", LEGACY_MCP_NAME]);
      why.push(`remove claude-fleet-monitor MCP server "${LEGACY_MCP_NAME}"`);
    }
    if (text === read.text || (read.text === null && text === "")) return undefined;
    return { kind: "write", path, before: read.text, after: text, why };
  } catch (failure) {
    findings.push(error(`${path}: ${(failure as Error).message}; left untouched`));
    return undefined;
  }
}

function planMcp(world: InstallContext, intent: Intent, findings: Finding[]): Step[] {
  const path = claudeJsonPath(world);
  const read = readConfigFile(path);
  if (!read.ok) {
    findings.push(error(`${read.detail}; MCP registration left as it is`));
    return [];
  }
  const doc = parseJsonDocument(read.text ?? "");
  if (!doc.ok) {
    findings.push(error(`${path} is ${doc.detail}; left untouched, MCP server not registered`));
    return [];
  }
  const paths = ourPaths(world);
  const desired = { type: "stdio", command: paths.node, args: [paths.cli, "mcp"], env: {} };
  const servers = isRecord(doc.data.mcpServers) ? doc.data.mcpServers : {};
  if (doc.data.mcpServers !== undefined && !isRecord(doc.data.mcpServers)) {
    findings.push(error(`${path}: "mcpServers" is not an object; left untouched`));
    return [];
  }
  const state = mcpState(servers[MCP_NAME], desired, MCP_KEYS);
  const cli = which("claude", world.env);
  const steps: Step[] = [];
  let text = doc.text;
  const why: string[] = [];
  const remaining = new Set(Object.keys(servers));
  // Removing the last server removes the mcpServers object too: an emptied container of ours is not left behind.
  const removeServer = (name: string) => {
    remaining.delete(name);
    text = removeJsonValue(text, remaining.size === 0 ? ["mcpServers"] : ["mcpServers", name]);
  };
  if (intent.mode === "install" && isLegacyFleetMcp(servers[LEGACY_MCP_NAME])) {
    removeServer(LEGACY_MCP_NAME);
    why.push(`remove claude-fleet-monitor MCP server "${LEGACY_MCP_NAME}"`);
  }
  if (state === "foreign") {
    findings.push(
      (intent.mode === "install" ? conflict : warning)(
        `${path}: an MCP server named "${MCP_NAME}" exists that the installer did not write; left as it is (remove it with \`claude mcp remove --scope user ${MCP_NAME}\` to let the installer register its own)`,
      ),
    );
  }
  const register = intent.mode === "install" && (state === "absent" || state === "outdated");
  const unregister = (intent.mode === "uninstall" && (state === "current" || state === "outdated")) || (register && state === "outdated");
  if (cli) {
    if (why.length > 0) steps.push({ kind: "write", path, before: read.text, after: text, why });
    if (unregister)
      steps.push({
        kind: "run",
        argv: [cli, "mcp", "remove", "--scope", "user", MCP_NAME],
        why: state === "outdated" && register ? `replace MCP server "${MCP_NAME}" (new paths)` : `remove MCP server "${MCP_NAME}"`,
      });
    // claude mcp remove leaves `"mcpServers": {}` behind when ours was the last server.
    if (unregister && !register && [...remaining].every((name) => name === MCP_NAME))
      steps.push({
        kind: "drop-empty",
        path,
        keys: ["mcpServers"],
        why: ['remove the "mcpServers" object claude mcp remove leaves empty'],
      });
    if (register)
      steps.push({
        kind: "run",
        argv: [cli, "mcp", "add", "--scope", "user", MCP_NAME, "--", desired.command, ...desired.args],
        why: `register MCP server "${MCP_NAME}" in ${path}`,
      });
    return steps;
  }
  if (register) {
    text = setJsonValue(text, ["mcpServers", MCP_NAME], desired, doc.style);
    why.push(`${state === "outdated" ? "update" : "add"} MCP server "${MCP_NAME}" (user scope; the claude CLI is not on PATH)`);
  } else if (unregister) {
    removeServer(MCP_NAME);
    why.push(`remove MCP server "${MCP_NAME}"`);
  }
  if (why.length > 0) steps.push({ kind: "write", path, before: read.text, after: text, why });
  return steps;
}

export async function planClaude(world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const findings: Finding[] = [];
  const steps: Step[] = [];
  const settings = planSettings(world, intent, findings);
  if (settings) steps.push(settings);
  try {
    steps.push(...planMcp(world, intent, findings));
  } catch (failure) {
    findings.push(error(`${claudeJsonPath(world)}: ${(failure as Error).message}; left untouched`));
  }
  const todo: string[] = [];
  if (steps.length > 0) todo.push("Restart running Claude Code sessions: they read hooks and MCP servers when they start.");
  if (intent.mode === "install" && !which("claude", world.env))
    findings.push(note("The claude CLI is not on PATH (not installed, or installed elsewhere)."));
  // `claude mcp add` creates .claude.json when it is missing.
  return { harness: "claude", steps, findings, todo, files: [claudeJsonPath(world)] };
}
