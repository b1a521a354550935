// What `npm pack` puts in the tarball, as far as the Pi bridge is concerned: the bridge ships, its tests do not, and
// the hook it runs sits where the bridge looks for it (../bin/ from pi-bridge/).
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./processes.ts";

function packedFiles(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // --ignore-scripts: `prepare` would rebuild dist/, which the global setup has already done.
    execFile("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) reject(error);
      else resolve((JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((file) => file.path));
    });
  });
}

describe("npm package", () => {
  it("ships the Pi bridge without its tests, and the hook where the bridge finds it", async () => {
    const files = await packedFiles();
    const bridgeSources = readdirSync(join(ROOT, "pi-bridge"), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.(js|json)$/.test(file))
      .map((file) => posix.join("pi-bridge", file));
    expect(bridgeSources).toEqual(expect.arrayContaining(["pi-bridge/index.js", "pi-bridge/package.json", "pi-bridge/lib/sender.js"]));
    expect(files).toEqual(expect.arrayContaining(bridgeSources));
    expect(files.filter((file) => file.startsWith("pi-bridge/") && file.endsWith(".test.ts"))).toEqual([]);
    // pi-bridge/../bin/tongs-agents-hook.cjs, and the bundle it loads.
    expect(files).toEqual(expect.arrayContaining(["bin/tongs-agents-hook.cjs", "dist/hook.cjs"]));
  });
});
