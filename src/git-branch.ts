// The git branch of a directory, when cheap to know: read the repository's HEAD file (no git process).
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoRootOf } from "./repo.ts";

/** Branch name, or a short commit for a detached HEAD; undefined outside a repository or when HEAD is unreadable. */
export function branchOf(directory: string, cache: Map<string, string | undefined> = new Map()): string | undefined {
  const root = repoRootOf(directory);
  if (root === undefined) return undefined;
  if (cache.has(root)) return cache.get(root);
  const branch = readHead(root);
  cache.set(root, branch);
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
