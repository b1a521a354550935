// doctor for Pi: the binary, our bridge package and its ownership marker, claude-fleet-monitor's Pi extension.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { doctorReport } from "../../install/doctor.ts";
import type { HarnessDoctor } from "../../install/plan.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { PI_MARKER_FILE, piPackagePaths, readMarker } from "./install.ts";
import { piAgentDir, piBridgePath } from "./locations.ts";

export async function piDoctor(world: InstallContext): Promise<HarnessDoctor> {
  const problems: string[] = [];
  const todo: string[] = [];
  const legacy: string[] = [];
  const agentDir = piAgentDir(world);
  const marker = readMarker(join(agentDir, PI_MARKER_FILE));
  const installed = piPackagePaths(agentDir);
  const paths = ourPaths(world);
  const bridgePath = piBridgePath(world);
  let bridge: HarnessDoctor["bridge"] = "missing";
  if (!marker.ok) {
    bridge = "unowned";
    problems.push(marker.detail);
  } else if (marker.marker) {
    const listed = installed.ok && installed.paths.includes(marker.marker.extension_path);
    bridge = !listed
      ? "missing"
      : marker.marker.extension_path === bridgePath && marker.marker.hook_path === paths.hook && marker.marker.node_path === paths.node
        ? "installed"
        : "outdated";
  }
  if (!installed.ok) problems.push(installed.detail);
  if (existsSync(join(agentDir, "claude-fleet-monitor.json")))
    legacy.push(
      `${join(agentDir, "claude-fleet-monitor.json")}: claude-fleet-monitor's Pi extension (remove it with \`claude-fleet uninstall --agent pi\`)`,
    );
  if (bridge === "missing" || bridge === "outdated") todo.push("Run `tongs-agents install --agent pi` to install or update the Pi bridge.");
  return doctorReport(world, {
    harness: "pi",
    program: { displayName: "Pi", binary: "pi", installHint: "npm install -g @earendil-works/pi-coding-agent" },
    versionEnv: { ...world.env, PI_OFFLINE: "1" },
    mcp: "n/a",
    bridge,
    problems,
    legacy,
    todo,
    advice: legacy.map(() => "Remove claude-fleet-monitor's Pi extension (docs/migration.md)."),
  });
}
