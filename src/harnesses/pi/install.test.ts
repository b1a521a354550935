// The Pi provider against a stateful fake `pi` (test/fixtures/fake-pi.mjs: mocked evidence, modelled on Pi 1.6.0);
// test/live/pi.test.ts runs the same flows against the real Pi.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeBinDir, makePackageRoot, makeWorld, readText } from "../../../test/install-world.ts";
import { ROOT } from "../../../test/processes.ts";
import { makeSandbox, type Sandbox } from "../../../test/sandbox.ts";
import { runInstaller } from "../../install/installer.ts";
import { PI_MARKER_FILE } from "./install.ts";
import type { InstallContext } from "../../install/context.ts";
import { installersFor } from "../installers.ts";

let sandbox: Sandbox;
let bin: string;
let agentDir: string;
let log: string;

beforeEach(() => {
  sandbox = makeSandbox();
  bin = makeBinDir(join(sandbox.root, "bin"), { pi: readFileSync(join(ROOT, "test", "fixtures", "fake-pi.mjs"), "utf8") });
  agentDir = sandbox.env.PI_CODING_AGENT_DIR as string;
  log = join(sandbox.root, "pi.log");
});
afterEach(() => sandbox.cleanup());

function worldAt(rootName: string, extra: NodeJS.ProcessEnv = {}): InstallContext {
  const world = makeWorld(sandbox, { packageRoot: makePackageRoot(join(sandbox.root, rootName)), path: [bin] });
  return { ...world, env: { ...world.env, FAKE_PI_LOG: log, ...extra } };
}
const run = async (world: InstallContext, mode: "install" | "uninstall", dryRun = false) =>
  runInstaller(world, { harnesses: await installersFor(["pi"]), mode, dryRun, options: [] });
const calls = () =>
  existsSync(log)
    ? readText(log)
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
    : [];
const marker = () => JSON.parse(readText(join(agentDir, PI_MARKER_FILE)));
const packages = () => JSON.parse(readText(join(agentDir, "settings.json"))).packages;

describe("Pi bridge install", () => {
  it("installs the bridge with pi install, records ownership, and is idempotent", async () => {
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "fake", packages: ["npm:someone-elses@1.0.0"] }));
    const world = worldAt("pkg a");
    const report = await run(world, "install");
    expect(report.ok).toBe(true);
    const bridge = join(world.packageRoot, "pi-bridge");
    expect(calls()).toEqual([["install", bridge]]);
    expect(marker()).toEqual({
      owner: "tongs-agents",
      schema_version: 1,
      node_path: process.execPath,
      hook_path: join(world.packageRoot, "bin", "tongs-agents-hook.cjs"),
      extension_path: bridge,
      managed_paths: [bridge],
    });
    expect(packages()).toEqual(["npm:someone-elses@1.0.0", "../../../pkg a/pi-bridge"]);
    const before = readText(join(agentDir, PI_MARKER_FILE));
    expect((await run(world, "install")).harnesses[0]?.steps).toEqual([]);
    expect(calls()).toHaveLength(1);
    expect(readText(join(agentDir, PI_MARKER_FILE))).toBe(before);
  });

  it("installs a moved bridge before removing the old reference", async () => {
    const first = worldAt("old place");
    await run(first, "install");
    const moved = worldAt("new place");
    const report = await run(moved, "install");
    expect(report.ok).toBe(true);
    const [oldBridge, newBridge] = [join(first.packageRoot, "pi-bridge"), join(moved.packageRoot, "pi-bridge")];
    expect(calls().slice(1)).toEqual([
      ["install", newBridge],
      ["remove", oldBridge],
    ]);
    expect(marker().managed_paths).toEqual([newBridge]);
    expect(packages()).toEqual(["../../../new place/pi-bridge"]);
  });

  it("keeps a reference it failed to remove recorded, and retries it on the next run", async () => {
    const first = worldAt("old place");
    await run(first, "install");
    const oldBridge = join(first.packageRoot, "pi-bridge");
    const moved = worldAt("new place", { FAKE_PI_FAIL: `remove:${oldBridge}` });
    const report = await run(moved, "install");
    expect(report.ok).toBe(false);
    expect(report.harnesses[0]?.steps.map((step) => step.status)).toEqual(["done", "done", "failed", "done"]);
    expect(marker().managed_paths).toEqual([join(moved.packageRoot, "pi-bridge"), oldBridge]);
    const retry = await run(worldAt("new place"), "install");
    expect(retry.ok).toBe(true);
    expect(calls().at(-1)).toEqual(["remove", oldBridge]);
    expect(marker().managed_paths).toEqual([join(moved.packageRoot, "pi-bridge")]);
  });

  it("restores the previous marker when pi install fails", async () => {
    const report = await run(worldAt("pkg", { FAKE_PI_FAIL: "install" }), "install");
    expect(report.ok).toBe(false);
    expect(report.harnesses[0]?.steps.map((step) => [step.kind, step.status])).toEqual([
      ["write", "done"],
      ["run", "failed"],
      ["delete", "done"],
    ]);
    expect(existsSync(join(agentDir, PI_MARKER_FILE))).toBe(false);
  });

  it("refuses a marker it did not write, and leaves it and Pi's packages alone", async () => {
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(agentDir, PI_MARKER_FILE), JSON.stringify({ owner: "someone-else", managed_paths: ["/etc"] }));
    for (const mode of ["install", "uninstall"] as const) {
      const report = await run(worldAt("pkg"), mode);
      expect(report.ok).toBe(false);
      expect(report.harnesses[0]?.findings[0]?.message).toMatch(/not an ownership marker written by tongs-agents/);
    }
    expect(calls()).toEqual([]);
  });

  it("uninstalls every managed reference and the marker, and only those", async () => {
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages: ["../../elsewhere/ext"] }));
    const world = worldAt("pkg");
    await run(world, "install");
    const report = await run(world, "uninstall");
    expect(report.ok).toBe(true);
    expect(packages()).toEqual(["../../elsewhere/ext"]);
    expect(existsSync(join(agentDir, PI_MARKER_FILE))).toBe(false);
    expect((await run(world, "uninstall")).harnesses[0]?.steps).toEqual([]);
  });

  it("dry-run lists the commands and the marker without running anything", async () => {
    const world = worldAt("pkg");
    const report = await run(world, "install", true);
    expect(report.harnesses[0]?.steps.map((step) => step.command ?? step.path)).toEqual([
      join(agentDir, PI_MARKER_FILE),
      [join(bin, "pi"), "install", join(world.packageRoot, "pi-bridge")],
    ]);
    expect(calls()).toEqual([]);
    expect(existsSync(join(agentDir, PI_MARKER_FILE))).toBe(false);
  });

  it("says so when pi is not on PATH", async () => {
    const world = { ...worldAt("pkg"), env: { ...sandbox.env, PATH: "/usr/bin:/bin" } };
    const report = await run(world, "install");
    expect(report.harnesses[0]?.findings[0]?.message).toMatch(/pi is not on PATH/);
  });
});
