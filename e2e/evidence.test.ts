import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunnerTestCase } from "vitest";
import { REPO_ROOT } from "./env.ts";
import { createEvidence, type EvidenceFile } from "./evidence.ts";

const task = (state?: "pass" | "fail") => ({ result: state ? { state } : undefined }) as unknown as RunnerTestCase;

describe("evidence files and docs/evidence.md", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it("records each claim with its test's outcome, and renders a table per suite with the versions", () => {
    const dir = mkdtempSync(join(tmpdir(), "evidence-"));
    dirs.push(dir);
    const evidence = createEvidence("demo", "A demo suite");
    evidence.addVersions({ tmux: "3.3a-3" });
    evidence.prove(task("pass"), { claim: "tmux | runs", kind: "live", how: "tmux new-session -d" });
    evidence.prove(task("fail"), { claim: "a hook event", kind: "synthetic", how: "a stand-in harness" });
    evidence.prove(task(), { claim: "skipped one", kind: "live", how: "never ran" });
    evidence.untested("real agents", "not in the image");
    const file = JSON.parse(readFileSync(evidence.write(dir), "utf8")) as EvidenceFile;
    expect(file.results.map(({ claim, outcome }) => [claim, outcome])).toEqual([
      ["tmux | runs", "passed"],
      ["a hook event", "failed"],
      ["skipped one", "not run"],
      ["real agents", "not run"],
    ]);
    expect(file.versions).toMatchObject({ tmux: "3.3a-3", "host: testcontainers": expect.any(String) });

    const out = join(dir, "evidence.md");
    execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "evidence.mjs"), "--from", dir, "--out", out]);
    const markdown = readFileSync(out, "utf8");
    expect(markdown).toContain("## demo: A demo suite");
    expect(markdown).toContain("1 passed, 1 failed, 1 not run, 1 untested");
    expect(markdown).toContain("| tmux \\| runs | live | tmux new-session -d | passed |");
    expect(markdown).toContain("| real agents | untested | not in the image | not run |");
    expect(markdown).toContain("| tmux | 3.3a-3 |");
  });

  it("keeps the section of a suite that wrote no file this run, and replaces the one that did", () => {
    const dir = mkdtempSync(join(tmpdir(), "evidence-"));
    dirs.push(dir);
    const render = (suite: string, claim: string) => {
      const from = join(dir, `${suite}-${claim}`);
      mkdirSync(from);
      const evidence = createEvidence(suite, `The ${suite} suite`, { containers: false });
      evidence.prove(task("pass"), { claim, kind: "live", how: "tmux" });
      evidence.write(from);
      execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "evidence.mjs"), "--from", from, "--out", join(dir, "evidence.md")]);
      return readFileSync(join(dir, "evidence.md"), "utf8");
    };
    render("zeta", "old zeta claim");
    render("alpha", "old alpha claim");
    const markdown = render("zeta", "new zeta claim");
    expect(markdown.match(/^## .*$/gm)).toEqual(["## alpha: The alpha suite", "## zeta: The zeta suite"]);
    expect(markdown).toContain("| old alpha claim | live | tmux | passed |");
    expect(markdown).toContain("| new zeta claim | live | tmux | passed |");
    expect(markdown).not.toContain("old zeta claim");
    expect(markdown).toContain("| host: tmux |");
    expect(markdown).not.toContain("host: podman");
  });
});
