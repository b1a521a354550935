// What each container (e2e) suite and live suite proved, how, and with which versions: written to
// .cache/evidence/<suite>.json after the suite, and turned into docs/evidence.md by scripts/evidence.mjs. A claim's outcome is its test's result, read after the
// suite ran, so a failing or skipped test never shows up as proven.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunnerTestCase } from "vitest";
import type { Box } from "./containers.ts";
import { REPO_ROOT } from "./env.ts";

/**
 * - live: the real program ran (tmux, a shell, the hook and CLI as installed, an agent CLI).
 * - synthetic: the real programs ran, fed with made-up or replayed input (captured payloads, a stand-in harness).
 * - mocked: a fake stood in for a program that cannot run here.
 * - untested: not proven by this suite; says why.
 */
export type EvidenceKind = "live" | "synthetic" | "mocked" | "untested";
export type Outcome = "passed" | "failed" | "not run";

export interface Claim {
  readonly claim: string;
  readonly kind: EvidenceKind;
  readonly how: string;
}

export interface EvidenceFile {
  readonly schema_version: 1;
  readonly suite: string;
  readonly title: string;
  readonly ran_at: string;
  readonly versions: Record<string, string>;
  readonly results: readonly (Claim & { outcome: Outcome })[];
}

export const EVIDENCE_DIR = join(REPO_ROOT, ".cache", "evidence");

export interface Evidence {
  /** This test, if it passes, proves the claim. Call it inside the test. */
  prove(task: Readonly<RunnerTestCase>, claim: Claim): void;
  /** Something this suite does not prove, and why. */
  untested(claim: string, why: string): void;
  addVersions(versions: Record<string, string>): void;
  write(dir?: string): string;
}

const outcomeOf = (task: Readonly<RunnerTestCase> | undefined): Outcome => {
  if (!task) return "not run";
  const state = task.result?.state;
  return state === "pass" ? "passed" : state === "fail" ? "failed" : "not run";
};

/** `containers: false` for a live suite, which runs its programs on this machine: no Podman or testcontainers. */
export function createEvidence(suite: string, title: string, { containers = true }: { containers?: boolean } = {}): Evidence {
  const entries: { claim: Claim; task?: Readonly<RunnerTestCase> }[] = [];
  const versions: Record<string, string> = { ...hostVersions(containers) };
  return {
    prove: (task, claim) => void entries.push({ claim, task }),
    untested: (claim, why) => void entries.push({ claim: { claim, kind: "untested", how: why } }),
    addVersions: (more) => void Object.assign(versions, more),
    write(dir = EVIDENCE_DIR) {
      const file: EvidenceFile = {
        schema_version: 1,
        suite,
        title,
        ran_at: new Date().toISOString(),
        versions,
        results: entries.map(({ claim, task }) => ({ ...claim, outcome: claim.kind === "untested" ? "not run" : outcomeOf(task) })),
      };
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${suite}.json`);
      writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
      return path;
    },
  };
}

function hostVersions(containers: boolean): Record<string, string> {
  const run = (file: string, args: string[]) => {
    try {
      return execFileSync(file, args, { encoding: "utf8", cwd: REPO_ROOT, stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return "unknown";
    }
  };
  const packageVersion = (name: string) =>
    (JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  const dirty = run("git", ["status", "--porcelain", "--untracked-files=no"]) === "" ? "" : " (with uncommitted changes)";
  return {
    ...(containers
      ? {
          "host: podman": run("podman", ["--version"]).replace(/^podman version /, ""),
          "host: testcontainers": packageVersion("testcontainers"),
        }
      : { "host: tmux": run("tmux", ["-V"]).replace(/^tmux /, "") }),
    "host: vitest": packageVersion("vitest"),
    "host: node (test runner)": process.version,
    "tongs-agents commit": `${run("git", ["rev-parse", "--short", "HEAD"])}${dirty}`,
  };
}

/** Versions of what runs inside the container: OS, Node, tongs-agents, and the Debian packages asked for. */
export async function boxVersions(box: Box, packages: readonly string[]): Promise<Record<string, string>> {
  const out = await box.sh(
    `. /etc/os-release; echo "os=$PRETTY_NAME, $(cat /etc/debian_version)"; echo "node=$(node --version)";
     echo "tongs-agents=$(node -p 'require("/usr/local/lib/node_modules/tongs-agents/package.json").version')";
     dpkg-query -W -f '\${Package}=\${Version}\\n' "$@"`,
    ...packages,
  );
  return Object.fromEntries(
    out
      .trim()
      .split("\n")
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}
