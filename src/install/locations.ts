// Where a harness keeps its configuration: an absolute directory named by an environment variable, the way every
// harness resolves its own home. Each harness adapter (src/harnesses/<id>/locations.ts) builds its paths on this.
import { isAbsolute } from "node:path";
import type { InstallContext } from "./context.ts";

export function envDir(world: InstallContext, name: string): string | undefined {
  const value = world.env[name];
  return value && isAbsolute(value) ? value : undefined;
}
