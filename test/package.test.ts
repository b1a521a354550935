// The npm tarball ships what installed hooks, the CLI and the Pi bridge need at run time, and nothing that only
// builds or tests; the hook sits where the bridge looks for it (../bin/ from pi-bridge/).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packedManifest, restore, strip } from "../scripts/pack-manifest.mjs";
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
  const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, npm_config_loglevel: "silent" },
  });
  packed = new Set((JSON.parse(output) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path));
});

describe("the packed npm tarball", () => {
  it("contains the hook, the CLI, every bundle, the Pi bridge and the OpenCode plugin, and no sources or tests", () => {
    for (const required of [
      "package.json",
      "README.md",
      "LICENSE",
      "bin/tongs-agents.js",
      "bin/package.json",
      "bin/tongs-agents-hook.cjs",
      "bin/tongs-agents-hook.sh",
      "bin/tongs-agents-key.sh",
      "bin/tongs-agents-drainer.cjs",
      "dist/build",
      "dist/hook.cjs",
      "dist/hook-drainer.cjs",
      "dist/cli/main.cjs",
      "dist/cli/verbs/status.cjs",
      "dist/mcp/stdio.cjs",
      "dist/statusline.cjs",
      "dist/claude-hold.cjs",
      "pi-bridge/package.json",
      "pi-bridge/index.js",
      "opencode-plugin/index.js",
      "opencode-plugin/map.js",
      "opencode-plugin/answer-channel.js",
      "opencode-plugin/answer-requests.js",
      "tongs-agents.tmux",
    ])
      expect(packed, required).toContain(required);
    const shipped = [
      ...filesUnder(join(ROOT, "bin")),
      ...filesUnder(join(ROOT, "dist")),
      ...filesUnder(join(ROOT, "pi-bridge")),
      ...filesUnder(join(ROOT, "opencode-plugin")),
    ].filter((file) => !file.endsWith(".test.ts") && !file.startsWith("opencode-plugin/fixtures/"));
    for (const file of shipped) expect(packed, file).toContain(file);
    expect(
      [...packed].filter((path) => /^(src|test|scripts|bench|\.ci|opencode-plugin\/fixtures)\//.test(path) || path.endsWith(".test.ts")),
    ).toEqual([]);
  });
});

describe("the packed package.json", () => {
  it("has no prepare script (npm counts it as an install script and warns on every install), the checkout keeps it", () => {
    const text = readFileSync(join(ROOT, "package.json"), "utf8");
    const checkout = JSON.parse(text) as { scripts: Record<string, string>; license: string };
    expect(checkout.scripts.prepare).toBe("node scripts/build.mjs");
    expect(checkout.scripts.prepack).toMatch(/^node scripts\/build\.mjs && node scripts\/pack-manifest\.mjs strip$/);
    expect(checkout.scripts.postpack).toBe("node scripts/pack-manifest.mjs restore");
    expect(checkout.license).toBe("MIT");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
    const packed = JSON.parse(packedManifest(text)) as { scripts: Record<string, string> };
    expect(["preinstall", "install", "postinstall", "prepare", "prepack", "postpack"].filter((name) => name in packed.scripts)).toEqual([]);
    expect({ ...packed, scripts: undefined }).toEqual({ ...checkout, scripts: undefined });
  });

  it("strip and restore give package.json back byte for byte, and a backup left by a failed pack is restored first", () => {
    const dir = mkdtempSync(join(tmpdir(), "tongs-pack-"));
    try {
      const original = readFileSync(join(ROOT, "package.json"));
      writeFileSync(join(dir, "package.json"), original);
      strip(dir);
      expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts.prepare).toBeUndefined();
      strip(dir); // a pack that died before postpack, then another pack
      expect(restore(dir)).toBe(true);
      expect(readFileSync(join(dir, "package.json"))).toEqual(original);
      expect(restore(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
