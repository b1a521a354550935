// doctor for Cline: the binary and its version, our hook files, the Node they run, our MCP server.
import { checkNodes, doctorReport, hooksTodo, mcpTodo } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { clineHookChecks } from "./install.ts";
import { clineMcpPath } from "./locations.ts";
import { clineMcpState } from "./mcp.ts";

export async function clineDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const todo: string[] = [];
  const paths = ourPaths(world);
  const { checks: hooks, problems, nodes } = clineHookChecks(world, { node: paths.node, hook: paths.hook, harness: "cline" });
  await checkNodes(world, nodes, problems);
  hooksTodo(hooks, "tongs-agents install --agent cline", todo);
  const mcp = clineMcpState(world);
  mcpTodo(mcp, "cline", `${clineMcpPath(world)}: mcpServers.tongs-agents`, todo, problems);
  return doctorReport(world, {
    harness: "cline",
    program: { displayName: "Cline", binary: "cline", installHint: "npm install -g cline" },
    hooks,
    mcp,
    problems,
    todo,
  });
}
