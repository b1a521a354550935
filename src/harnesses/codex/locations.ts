// Where Codex keeps the files the installer edits, resolved the way Codex resolves them.
import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { envDir } from "../../install/locations.ts";
import type { InstallContext } from "../../install/context.ts";

export function codexHome(world: InstallContext): string {
  return envDir(world, "CODEX_HOME") ?? join(world.home, ".codex");
}

/** Codex canonicalizes CODEX_HOME (symlinks resolved) before it builds hook trust keys (observed, 0.171.0). */
export function codexHomeCanonical(world: InstallContext): string {
  // Not created yet: resolve the nearest directory that exists and keep the rest as written.
  const rest: string[] = [];
  for (let dir = codexHome(world); ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return codexHome(world);
      rest.unshift(basename(dir));
    }
  }
}
