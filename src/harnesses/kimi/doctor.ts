// doctor for Kimi Code: the binary and its version, our [[hooks]] tables in config.toml, the Node they run, our MCP server.
import { checkNodes, doctorReport, hookNodes, hooksTodo, mcpTodo } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { kimiHookChecks, readKimiConfig } from "./install.ts";
import { kimiConfigPath, kimiMcpPath } from "./locations.ts";
import { kimiMcpState } from "./mcp.ts";

export async function kimiDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const problems: string[] = [];
  const todo: string[] = [];
  const paths = ourPaths(world);
  const config = readKimiConfig(kimiConfigPath(world), { node: paths.node, hook: paths.hook, harness: "kimi" });
  if (!config.ok) problems.push(config.detail);
  const hooks = kimiHookChecks(config);
  const commands = config.ok
    ? config.tables.flatMap((table) => (table.owner.kind === "ours" && typeof table.body?.command === "string" ? [table.body.command] : []))
    : [];
  await checkNodes(world, hookNodes(commands), problems);
  hooksTodo(hooks, "tongs-agents install --agent kimi", todo);
  const mcp = kimiMcpState(world);
  mcpTodo(mcp, "kimi", `${kimiMcpPath(world)}: mcpServers.tongs-agents`, todo, problems);
  return doctorReport(world, {
    harness: "kimi",
    program: {
      displayName: "Kimi Code",
      binary: "kimi",
      installHint: "npm install -g @moonshot-ai/kimi-code; it needs Node 22.19 or newer",
    },
    hooks,
    mcp,
    problems,
    todo,
  });
}
