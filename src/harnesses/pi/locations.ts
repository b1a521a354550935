// Where Pi keeps its agent directory, resolved the way Pi resolves it.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function piAgentDir(world: InstallContext): string {
  return envDir(world, "PI_CODING_AGENT_DIR") ?? join(world.home, ".pi", "agent");
}
