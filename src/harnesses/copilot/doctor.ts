// doctor for Copilot CLI: the binary, our hooks file, the Node it runs, our MCP server, and Copilot's own switches that
// can stop hooks.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkNodes, doctorReport, hookNodes, hooksTodo, mcpTodo } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { isRecord } from "../../core/json-value.ts";
import { copilotHookChecks, readHooksFile } from "./install.ts";
import { copilotHome, copilotHooksPath, copilotMcpPath } from "./locations.ts";
import { copilotMcpState } from "./mcp.ts";

/**
 * One of Copilot's own JSON files: it writes config.json with `//` comment lines above the object (1.0.102), so those
 * are dropped first. Undefined when absent or not readable as that: it is Copilot's file, not ours to judge.
 */
export function readCopilotJson(path: string): Record<string, unknown> | undefined {
  try {
    const text = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("//"))
      .join("\n");
    const data: unknown = JSON.parse(text);
    return isRecord(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

/** Copilot's switches that turn hooks off, from its settings schema (1.0.102: `disableAllHooks`, `disabledHooks`). */
function hookSwitches(world: InstallContext): string[] {
  const advice: string[] = [];
  for (const name of ["config.json", "settings.json"]) {
    const path = join(copilotHome(world), name);
    if (!existsSync(path)) continue;
    const data = readCopilotJson(path);
    if (!data) continue;
    if (data.disableAllHooks === true)
      advice.push(
        `${path} sets disableAllHooks: Copilot CLI documents it as turning every hook off (1.0.102 was seen still running hooks from its hooks directory); remove it for tongs-agents to see this harness.`,
      );
    if (Array.isArray(data.disabledHooks) && data.disabledHooks.length > 0)
      advice.push(
        `${path} lists ${data.disabledHooks.length} disabled hook(s) (disabledHooks, by content hash): if ours are among them Copilot skips them; re-enable them in Copilot.`,
      );
  }
  return advice;
}

export async function copilotDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const problems: string[] = [];
  const todo: string[] = [];
  const paths = ourPaths(world);
  const target = { node: paths.node, hook: paths.hook, harness: "copilot" };
  const path = copilotHooksPath(world);
  const file = readHooksFile(path, target);
  if (file.kind === "unreadable") problems.push(file.detail);
  if (file.kind === "foreign") problems.push(`${path} is not what tongs-agents writes (${file.reason})`);
  const hooks = copilotHookChecks(file, target);
  const commands =
    file.kind === "ours" && isRecord(file.data.hooks)
      ? Object.values(file.data.hooks).flatMap((handlers) => (handlers as { bash: string }[]).map((handler) => handler.bash))
      : [];
  await checkNodes(world, hookNodes(commands), problems);
  hooksTodo(hooks, "tongs-agents install --agent copilot", todo);
  const mcp = copilotMcpState(world);
  mcpTodo(mcp, "copilot", `${copilotMcpPath(world)}: mcpServers.tongs-agents`, todo, problems);
  todo.push(...hookSwitches(world));
  return doctorReport(world, {
    harness: "copilot",
    program: { displayName: "Copilot CLI", binary: "copilot", installHint: "npm install -g @github/copilot" },
    hooks,
    mcp,
    problems,
    todo,
  });
}
