// The git branch of a directory, when cheap to know: read the repository's HEAD file (no git process).
import { statSync } from "node:fs";
import { join } from "node:path";
import { readTextFile } from "../store/records.ts";
import { repoRootOf } from "./repo.ts";

/** HEAD and a .git pointer file are one line; anything larger is not one. */
const GIT_FILE_BYTES = 4096;

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
      const pointer = /^gitdir: (.+)$/m.exec(readSmall(gitDir) ?? "")?.[1];
      if (!pointer) return undefined;
      gitDir = pointer.startsWith("/") ? pointer : join(root, pointer);
    }
    const head = readSmall(join(gitDir, "HEAD"))?.trim();
    if (head === undefined) return undefined;
    const ref = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
    return ref ?? (/^[0-9a-f]{40}/.test(head) ? head.slice(0, 7) : undefined);
  } catch {
    return undefined;
  }
}

/** A cwd comes from a harness payload: its .git may hold a FIFO, a symlink or a huge file; none may block or load it. */
function readSmall(path: string): string | undefined {
  const file = readTextFile(path, GIT_FILE_BYTES);
  return file.kind === "text" ? file.text : undefined;
}
