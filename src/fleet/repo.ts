// Which git repository a directory belongs to, by walking up to the nearest `.git` (a directory, or a file in a
// worktree or submodule). Cheap: a few stat calls, no git process.
import { statSync } from "node:fs";
import { basename, dirname } from "node:path";

export function repoRootOf(directory: string): string | undefined {
  let current = directory;
  for (let depth = 0; depth < 64; depth++) {
    if (exists(`${current}/.git`)) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

export function repoNameOf(directory: string): string | undefined {
  const root = repoRootOf(directory);
  return root === undefined ? undefined : basename(root);
}

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // EACCES, ENOTDIR: not a repository we can see
  }
}
