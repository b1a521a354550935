// OpenCode: one owned file, `<config>/plugin/tongs-agents.js`, a module that imports the plugin from this installation
// (<package root>/opencode-plugin/) and passes it the Node.js and hook paths to run. The file's first line marks it as
// ours; a file there without it is refused, never overwritten or removed. Uninstall deletes exactly the file we wrote
// (the plugin directory itself stays). A moved installation is rewritten in place.
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { readConfigFile } from "../../install/file-edit.ts";
import { error, note, type HarnessPlan, type Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, which, type InstallContext } from "../../install/context.ts";
import { planOpencodeMcp } from "./mcp.ts";
import { opencodePluginFile } from "./locations.ts";

export const OPENCODE_PLUGIN_HEADER =
  "// tongs-agents: reports OpenCode's sessions to tongs-agents. Written by `tongs-agents install --agent opencode`; removed by uninstall.";

/** The plugin directory of this installation. */
export function pluginModuleOf(world: InstallContext): string {
  return join(world.packageRoot, "opencode-plugin", "index.js");
}

/** The owned module's text: paths are JSON string literals, so no path can break out of them. */
export function renderPluginFile(world: InstallContext): string {
  const paths = ourPaths(world);
  return [
    OPENCODE_PLUGIN_HEADER,
    `import { createPlugin } from ${JSON.stringify(pluginModuleOf(world))};`,
    "",
    `export const TongsAgents = createPlugin({ node: ${JSON.stringify(paths.node)}, hook: ${JSON.stringify(paths.hook)} });`,
    "",
  ].join("\n");
}

export type PluginFileRead = { ok: true; text: string | null; ours: boolean } | { ok: false; detail: string };

/** The owned file as it is: absent, ours (first line is our header), someone else's, or unreadable. */
export function readPluginFile(path: string): PluginFileRead {
  try {
    if (lstatSync(path).isSymbolicLink())
      return { ok: false, detail: `${path} is a symlink; refusing to touch a file tongs-agents did not write` };
  } catch {
    // absent: readConfigFile says so
  }
  const read = readConfigFile(path);
  if (!read.ok) return read;
  if (read.text === null) return { ok: true, text: null, ours: false };
  return { ok: true, text: read.text, ours: read.text.split("\n", 1)[0] === OPENCODE_PLUGIN_HEADER };
}

const RESTART = "Restart running OpenCode sessions: OpenCode loads plugins and MCP servers when it starts.";

/** The plugin module, then our MCP server in opencode.json or opencode.jsonc (mcp.ts). */
export async function planOpencode(world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const plugin = planOpencodePlugin(world, intent);
  const findings = [...plugin.findings];
  const mcp = planOpencodeMcp(world, intent, findings);
  if (mcp.length === 0) return { ...plugin, findings };
  return { ...plugin, steps: [...plugin.steps, ...mcp], findings, todo: plugin.todo.length > 0 ? plugin.todo : [RESTART] };
}

function planOpencodePlugin(world: InstallContext, intent: Intent): HarnessPlan {
  const path = opencodePluginFile(world);
  const current = readPluginFile(path);
  const plan = (steps: Step[], findings: HarnessPlan["findings"], todo: string[] = []): HarnessPlan => ({
    harness: "opencode",
    steps,
    findings,
    todo,
  });
  if (!current.ok) return plan([], [error(current.detail)]);
  if (current.text !== null && !current.ours)
    return plan([], [error(`${path} was not written by tongs-agents (its first line is not ours); left untouched`)]);
  if (intent.mode === "uninstall") {
    if (current.text === null) return plan([], [note(`No OpenCode plugin installed by tongs-agents (${path} does not exist).`)]);
    return plan([{ kind: "delete", path, before: current.text, why: ["remove the tongs-agents plugin module"] }], [], [RESTART]);
  }
  if (!existsSync(pluginModuleOf(world)))
    return plan([], [error(`the OpenCode plugin is missing from this installation (${pluginModuleOf(world)})`)]);
  const findings = which("opencode", world.env)
    ? []
    : [note("opencode is not on PATH; the plugin takes effect when OpenCode starts (npm install -g opencode-ai)")];
  const desired = renderPluginFile(world);
  if (current.text === desired) return plan([], findings);
  const why =
    current.text === null
      ? ["add the tongs-agents plugin module; OpenCode loads every plugin/*.js in its config directory"]
      : ["rewrite the plugin module for this installation's paths (tongs-agents or its Node.js moved)"];
  return plan([{ kind: "write", path, before: current.text, after: desired, why }], findings, [RESTART]);
}
