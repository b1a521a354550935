// Where Pi keeps its agent directory, resolved the way Pi resolves it.
import { join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallWorld } from "../../install/world.ts";

export function piAgentDir(world: InstallWorld): string {
  return envDir(world, "PI_CODING_AGENT_DIR") ?? join(world.home, ".pi", "agent");
}
