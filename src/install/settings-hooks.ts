// One installer for harnesses that keep Claude-style command hooks under `"hooks"` in a settings.json of their own and
// nothing else of ours. Each harness adapter gives its file, its event table (in the harness's own timeout unit) and
// its binary; the harnesses that use it run a hook's command with `bash -c` on Linux (each adapter's installer.ts says
// which version showed it), so the shim's `/bin/sh ...` line works as is. The same file holds our MCP server under
// `mcpServers` (mcp-json.ts), in the shape those harnesses' own `mcp add -s user` writes.
import { checkNodes, doctorReport, hookChecks, hooksTodo, jsonData } from "./doctor.ts";
import { editHooks, hooksShapeProblem, type HookSpec } from "./hook-entries.ts";
import { commandAndArgs, editMcpJson, mcpJsonState, mcpServersOf, type McpJsonFormat } from "./mcp-json.ts";
import { MCP_NAME } from "./mcp-entry.ts";
import { parseJsonDocument } from "./json-text.ts";
import { readConfigFile } from "./file-edit.ts";
import { error, note, type Finding, type HarnessDoctor, type HarnessPlan, type Step } from "./plan.ts";
import { genericApply, type InstallProvider, type Intent } from "./provider.ts";
import { ourPaths, which, type InstallContext } from "./context.ts";

export interface SettingsHooksHarness {
  readonly id: string;
  readonly displayName: string;
  /** The command on PATH, and how to install it when it is missing. */
  readonly binary: string;
  readonly installHint: string;
  readonly hooks: readonly HookSpec[];
  readonly settingsPath: (world: InstallContext) => string;
}

/** `"mcpServers": {"tongs-agents": {"command": ..., "args": [...]}}`: what those harnesses' `mcp add -s user` writes for
 * a stdio server. */
export const SETTINGS_MCP: McpJsonFormat = {
  // They read settings.json through strip-json-comments, then JSON.parse: comments, no trailing commas.
  dialect: "comments",
  container: "mcpServers",
  entry: ({ command, args }) => ({ command, args: [...args] }),
  command: commandAndArgs,
};

function planSettings(harness: SettingsHooksHarness, world: InstallContext, intent: Intent, findings: Finding[]): Step | undefined {
  const path = harness.settingsPath(world);
  const read = readConfigFile(path);
  if (!read.ok) {
    findings.push(error(`${read.detail}; left untouched`));
    return undefined;
  }
  const doc = parseJsonDocument(read.text ?? "", SETTINGS_MCP.dialect);
  if (!doc.ok) {
    findings.push(error(`${path} is ${doc.detail}; left untouched. Fix it, then run the command again.`));
    return undefined;
  }
  const shape = hooksShapeProblem(doc.data, harness.hooks);
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
      harness.hooks,
      { node: paths.node, hook: paths.hook, harness: harness.id, mode: paths.hookMode },
      intent.mode,
      path,
      false,
      intent.emptyBefore?.(path),
    );
    for (const problem of edit.problems) findings.push({ severity: problem.severity, message: problem.message });
    const hooked = parseJsonDocument(edit.text, SETTINGS_MCP.dialect);
    const mcp = hooked.ok
      ? editMcpJson(
          edit.text,
          hooked.data,
          doc.style,
          SETTINGS_MCP,
          { command: paths.node, args: [paths.cli, "mcp"] },
          intent.mode,
          path,
          intent.emptyBefore?.(path),
        )
      : { text: edit.text, changes: [], findings: [] };
    findings.push(...mcp.findings);
    if (mcp.text === read.text || (read.text === null && mcp.text === "")) return undefined;
    return { kind: "write", path, before: read.text, after: mcp.text, why: [...edit.changes, ...mcp.changes] };
  } catch (failure) {
    findings.push(error(`${path}: ${(failure as Error).message}; left untouched`));
    return undefined;
  }
}

async function plan(harness: SettingsHooksHarness, world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const findings: Finding[] = [];
  const step = planSettings(harness, world, intent, findings);
  const steps = step ? [step] : [];
  const todo = steps.length > 0 ? [`Restart running ${harness.displayName} sessions: they read their hooks when they start.`] : [];
  if (intent.mode === "install" && !which(harness.binary, world.env))
    findings.push(note(`The ${harness.binary} CLI is not on PATH (not installed, or installed elsewhere).`));
  return { harness: harness.id, steps, findings, todo, files: [harness.settingsPath(world)] };
}

async function doctor(harness: SettingsHooksHarness, world: InstallContext): Promise<HarnessDoctor> {
  const nodes = new Set<string>();
  const problems: string[] = [];
  const legacy: string[] = [];
  const todo: string[] = [];
  const path = harness.settingsPath(world);
  const settings = jsonData(path, problems, SETTINGS_MCP.dialect);
  const hooks = hookChecks(settings, harness.hooks, world, harness.id, legacy, problems, path, nodes);
  const paths = ourPaths(world);
  const servers = settings ? mcpServersOf(settings, SETTINGS_MCP) : undefined;
  const mcp = servers ? mcpJsonState(servers[MCP_NAME], SETTINGS_MCP, { command: paths.node, args: [paths.cli, "mcp"] }) : "unknown";
  await checkNodes(world, nodes, problems);
  hooksTodo(hooks, `tongs-agents install --agent ${harness.id}`, todo);
  if (mcp === "absent" || mcp === "outdated") todo.push(`Run \`tongs-agents install --agent ${harness.id}\` to register the MCP server.`);
  if (mcp === "foreign") problems.push(`${path}: mcpServers.${MCP_NAME} is not what the installer writes`);
  return doctorReport(world, { harness: harness.id, program: harness, hooks, mcp, problems, legacy, todo });
}

export function settingsHooksInstaller(harness: SettingsHooksHarness): InstallProvider {
  return {
    id: harness.id,
    hooks: harness.hooks,
    plan: (world, intent) => plan(harness, world, intent),
    apply: genericApply,
    doctor: (world) => doctor(harness, world),
  };
}
