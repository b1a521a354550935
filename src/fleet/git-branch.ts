// The git branch of a directory, when cheap to know: read the repository's HEAD file (no git process).
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoRootOf } from "./repo.ts";

/**
 * Branch name, or a short commit for a detached HEAD; undefined outside a repository or when HEAD is unreadable.
 * `cache` holds answers by directory and by repository root (many sessions share a few directories).
 */
export function branchOf(directory: string, cache: Map<string, string | undefined> = new Map()): string | undefined {
  if (cache.has(directory)) return cache.get(directory);
  const root = repoRootOf(directory);
  const branch = root === undefined ? undefined : cache.has(root) ? cache.get(root) : readHead(root);
  if (root !== undefined) cache.set(root, branch);
  cache.set(directory, branch);
  return branch;
}

function readHead(root: string): string | undefined {
  try {
    let gitDir = join(root, ".git");
    // A worktree or submodule has a .git file: "gitdir: <path>".
    if (statSync(gitDir).isFile()) {
      const pointer = /^gitdir: (.+)$/m.exec(readFileSync(gitDir, "utf8"))?.[1];
      if (!pointer) return undefined;
      gitDir = pointer.startsWith("/") ? pointer : join(root, pointer);
    }
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    const ref = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
    return ref ?? (/^[0-9a-f]{40}/.test(head) ? head.slice(0, 7) : undefined);
  } catch {
    return undefined;
  }
}
