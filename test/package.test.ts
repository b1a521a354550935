// The npm tarball ships what installed hooks and the CLI need at run time: the hook, the CLI, their bundles, the Pi
// bridge (when the repository has it) and nothing that only builds or tests.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./processes.ts";

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? (name === "node_modules" ? [] : filesUnder(path)) : [relative(ROOT, path)];
  });
}

describe("the packed npm tarball", () => {
  it("contains the hook, the CLI, every bundle and the Pi bridge", () => {
    // dist/ is built by test/global-setup.ts; --ignore-scripts skips the prepare build that would race it.
    const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, npm_config_loglevel: "silent" } });
    const packed = new Set((JSON.parse(output) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path));
    for (const required of ["package.json", "README.md", "bin/tongs-agents.js", "bin/tongs-agents-hook.cjs", "dist/hook.cjs", "dist/cli/main.js"]) expect(packed, required).toContain(required);
    for (const file of [...filesUnder(join(ROOT, "bin")), ...filesUnder(join(ROOT, "dist")), ...filesUnder(join(ROOT, "pi-bridge"))]) expect(packed, file).toContain(file);
    expect([...packed].filter((path) => /^(src|test|scripts|bench|\.ci)\//.test(path) || path.endsWith(".test.ts"))).toEqual([]);
  });
});
