// The npm tarball ships what installed hooks, the CLI and the Pi bridge need at run time, and nothing that only
// builds or tests; the hook sits where the bridge looks for it (../bin/ from pi-bridge/).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./processes.ts";

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? (name === "node_modules" ? [] : filesUnder(path)) : [relative(ROOT, path)];
  });
}

let packed: Set<string>;
beforeAll(() => {
  // dist/ is built by test/global-setup.ts; --ignore-scripts skips the prepare build that would race it.
  const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: "silent" } });
  packed = new Set((JSON.parse(output) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path));
});

describe("the packed npm tarball", () => {
  it("contains the hook, the CLI, every bundle and the Pi bridge, and no sources or tests", () => {
    for (const required of ["package.json", "README.md", "bin/tongs-agents.js", "bin/package.json", "bin/tongs-agents-hook.cjs", "dist/hook.cjs", "dist/cli/main.cjs", "dist/cli/verbs/status.cjs", "dist/mcp/stdio.cjs", "pi-bridge/package.json", "pi-bridge/index.js"]) expect(packed, required).toContain(required);
    const shipped = [...filesUnder(join(ROOT, "bin")), ...filesUnder(join(ROOT, "dist")), ...filesUnder(join(ROOT, "pi-bridge"))].filter((file) => !file.endsWith(".test.ts"));
    for (const file of shipped) expect(packed, file).toContain(file);
    expect([...packed].filter((path) => /^(src|test|scripts|bench|\.ci)\//.test(path) || path.endsWith(".test.ts"))).toEqual([]);
  });
});
