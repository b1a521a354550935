import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { branchOf } from "./git-branch.ts";

let sandbox: Sandbox;
let repo: string;
beforeEach(() => {
  sandbox = makeSandbox();
  repo = join(sandbox.root, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "src", "deep"), { recursive: true });
  writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/feature/x\n");
});
afterEach(() => sandbox.cleanup());

describe("branchOf", () => {
  it("reads the branch from the repository's HEAD, from any directory inside it", () => {
    expect(branchOf(repo)).toBe("feature/x");
    expect(branchOf(join(repo, "src", "deep"))).toBe("feature/x");
    writeFileSync(join(repo, ".git", "HEAD"), `${"ab12cd3".padEnd(40, "0")}\n`);
    expect(branchOf(repo)).toBe("ab12cd3");
    expect(branchOf(sandbox.home)).toBeUndefined();
  });

  it("follows a worktree's .git file to its git dir", () => {
    const worktree = join(sandbox.root, "worktree");
    const gitDir = join(repo, ".git", "worktrees", "w");
    mkdirSync(gitDir, { recursive: true });
    mkdirSync(worktree);
    writeFileSync(join(worktree, ".git"), `gitdir: ${gitDir}\n`);
    writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/side\n");
    expect(branchOf(worktree)).toBe("side");
  });

  it("with a cache, answers each directory and each repository once", () => {
    const cache = new Map<string, string | undefined>();
    expect(branchOf(join(repo, "src"), cache)).toBe("feature/x");
    writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/other\n");
    // Same directory, and another directory of the same repository: the cached answer.
    expect(branchOf(join(repo, "src"), cache)).toBe("feature/x");
    expect(branchOf(join(repo, "src", "deep"), cache)).toBe("feature/x");
    expect(branchOf(sandbox.home, cache)).toBeUndefined();
    expect(branchOf(join(repo, "src"), new Map())).toBe("other");
  });

  it("answers nothing, at once, when HEAD or a worktree's .git is a FIFO or too large (a cwd is the harness's word)", () => {
    rmSync(join(repo, ".git", "HEAD"));
    execFileSync("mkfifo", [join(repo, ".git", "HEAD")]);
    expect(branchOf(repo)).toBeUndefined(); // a blocking read would hang this test until its timeout
    const worktree = join(sandbox.root, "worktree");
    mkdirSync(worktree);
    execFileSync("mkfifo", [join(worktree, ".git")]);
    expect(branchOf(worktree)).toBeUndefined();
    rmSync(join(repo, ".git", "HEAD"));
    writeFileSync(join(repo, ".git", "HEAD"), `ref: refs/heads/${"x".repeat(8192)}\n`);
    expect(branchOf(repo)).toBeUndefined();
  });
});
