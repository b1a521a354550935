// Where Pi keeps its agent directory, resolved the way Pi resolves it, and where our bridge extension is.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function piAgentDir(world: InstallContext): string {
  return envDir(world, "PI_CODING_AGENT_DIR") ?? join(world.home, ".pi", "agent");
}

/** The bridge extension this installation ships (pi-bridge/ in the package), which `pi install` is given. */
export function piBridgePath(world: InstallContext): string {
  return join(world.packageRoot, "pi-bridge");
}
