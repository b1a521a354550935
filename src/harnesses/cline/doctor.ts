// doctor for Cline: the binary and its version, our hook files, the Node they run, our MCP server.
import { checkNodes, hooksTodo, mcpTodo, versionOf } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import { ourPaths, which, type InstallContext } from "../../install/context.ts";
import { clineHookChecks } from "./install.ts";
import { clineMcpPath } from "./locations.ts";
import { clineMcpState } from "./mcp.ts";

export async function clineDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const binary = which("cline", world.env);
  const todo: string[] = [];
  const paths = ourPaths(world);
  const { checks: hooks, problems, nodes } = clineHookChecks(world, { node: paths.node, hook: paths.hook, harness: "cline" });
  await checkNodes(world, nodes, problems);
  if (!binary) todo.push("Install Cline (npm install -g cline), or put cline on PATH.");
  hooksTodo(hooks, "tongs-agents install --agent cline", todo);
  const mcp = clineMcpState(world);
  mcpTodo(mcp, "cline", `${clineMcpPath(world)}: mcpServers.tongs-agents`, todo, problems);
  return {
    harness: "cline",
    binary: binary ?? null,
    version: await versionOf(world, binary),
    hooks,
    mcp,
    problems,
    legacy: [],
    todo,
    ok: todo.length === 0 && problems.length === 0,
  };
}
