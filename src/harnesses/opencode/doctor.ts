// doctor for OpenCode: the binary, our plugin module (installed, outdated, someone else's), our MCP server, and the
// switches under which OpenCode would not load the plugin.
import { doctorReport } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import type { InstallContext } from "../../install/context.ts";
import { readPluginFile, renderPluginFile } from "./install.ts";
import { opencodePluginFile } from "./locations.ts";
import { opencodeMcpState } from "./mcp.ts";

export async function opencodeDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const problems: string[] = [];
  const todo: string[] = [];
  const path = opencodePluginFile(world);
  const file = readPluginFile(path);
  let bridge: HarnessDoctor["bridge"] = "missing";
  if (!file.ok) {
    bridge = "unowned";
    problems.push(file.detail);
  } else if (file.text !== null && !file.ours) {
    bridge = "unowned";
    problems.push(`${path} was not written by tongs-agents; OpenCode loads it, but it is not ours`);
  } else if (file.text !== null) bridge = file.text === renderPluginFile(world) ? "installed" : "outdated";
  // `opencode --pure` (which sets OPENCODE_PURE) runs without external plugins: ours among them.
  const pure = world.env.OPENCODE_PURE;
  if (pure !== undefined && pure !== "" && pure !== "0" && pure.toLowerCase() !== "false")
    problems.push("OPENCODE_PURE is set: OpenCode runs without external plugins, so it would not load ours");
  if (bridge === "missing" || bridge === "outdated")
    todo.push("Run `tongs-agents install --agent opencode` to install or update the OpenCode plugin.");
  const mcp = opencodeMcpState(world);
  if (mcp.state === "absent" || mcp.state === "outdated")
    todo.push("Run `tongs-agents install --agent opencode` to register the MCP server.");
  if (mcp.state === "foreign") problems.push(`${mcp.path}: mcp.tongs-agents is not what the installer writes`);
  if (mcp.state === "unknown") problems.push(`${mcp.path} cannot be read as OpenCode's JSON with comments: MCP server unknown`);
  return doctorReport(world, {
    harness: "opencode",
    program: { displayName: "OpenCode", binary: "opencode", installHint: "npm install -g opencode-ai" },
    versionEnv: { ...world.env, OPENCODE_DISABLE_AUTOUPDATE: "1" },
    mcp: mcp.state,
    bridge,
    problems,
    todo,
  });
}
