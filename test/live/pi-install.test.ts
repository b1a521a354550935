// Live: the real Pi CLI (pinned in harnesses.json) installing and removing our bridge package. The bridge here is a
// stand-in (test/install-world.ts: a Pi package with one no-op extension); the real one is built in pi-bridge/.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInstaller } from "../../src/install/installer.ts";
import { PI_MARKER_FILE } from "../../src/harnesses/pi/install.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { makePackageRoot } from "../install-world.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";
import { installersFor } from "../../src/harnesses/installers.ts";

let sandbox: Sandbox;
let agentDir: string;
let other: string;

beforeEach(() => {
  sandbox = makeSandbox();
  agentDir = sandbox.env.PI_CODING_AGENT_DIR as string;
  // Someone else's local extension package, already configured: it must survive every step.
  other = join(sandbox.root, "other-extension");
  mkdirSync(join(other, "extensions"), { recursive: true });
  writeFileSync(join(other, "package.json"), JSON.stringify({ name: "other", private: true, pi: { extensions: ["./extensions/x.js"] } }));
  writeFileSync(join(other, "extensions", "x.js"), "export default function () {}\n");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "settings.json"), `${JSON.stringify({ packages: [other] }, null, 2)}\n`);
});
afterEach(() => sandbox.cleanup());

const worldAt = (name: string) => liveWorld(sandbox, makePackageRoot(join(sandbox.root, name)), [harnessBinDir("pi")]);
const run = async (world: InstallContext, mode: "install" | "uninstall") =>
  runInstaller(world, { harnesses: await installersFor(["pi"]), mode, dryRun: false, options: [] });
const piList = async (world: InstallContext) => {
  const result = await execa("pi", ["list"], { env: world.env, extendEnv: false, reject: false, input: "" });
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout;
};

describe(`Pi ${HARNESS_PACKAGES.pi.version} (live)`, { timeout: 180_000 }, () => {
  it("installs the bridge with pi install, moves it, and removes only it", async () => {
    const first = worldAt("first place");
    const installed = await run(first, "install");
    expect(installed.ok, JSON.stringify(installed.harnesses[0]?.steps)).toBe(true);
    const firstBridge = join(first.packageRoot, "pi-bridge");
    expect(await piList(first)).toContain(firstBridge);
    expect(JSON.parse(readFileSync(join(agentDir, PI_MARKER_FILE), "utf8"))).toMatchObject({
      owner: "tongs-agents",
      extension_path: firstBridge,
      managed_paths: [firstBridge],
    });
    expect((await run(first, "install")).harnesses[0]?.steps).toEqual([]);

    const moved = worldAt("moved place");
    const report = await run(moved, "install");
    expect(report.ok).toBe(true);
    const listing = await piList(moved);
    expect(listing).toContain(join(moved.packageRoot, "pi-bridge"));
    expect(listing).not.toContain(firstBridge);
    expect(listing).toContain(other);

    expect((await run(moved, "uninstall")).ok).toBe(true);
    const after = await piList(moved);
    expect(after).not.toContain("pi-bridge");
    expect(after).toContain(other);
    expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).packages).toEqual([other]);
  });

  it("removes the packages list pi remove leaves empty, and the settings.json that pi install created", async () => {
    rmSync(join(agentDir, "settings.json"));
    const world = worldAt("only place");
    expect((await run(world, "install")).ok).toBe(true);
    expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).packages).toHaveLength(1);
    const removal = await run(world, "uninstall");
    expect(removal.ok, JSON.stringify(removal.harnesses[0]?.steps)).toBe(true);
    expect(existsSync(join(agentDir, "settings.json"))).toBe(false);

    // A settings.json of the user's with other settings: it stays, without the emptied list.
    writeFileSync(join(agentDir, "settings.json"), `${JSON.stringify({ defaultThinkingLevel: "low" }, null, 2)}\n`);
    await run(world, "install");
    await run(world, "uninstall");
    expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"))).toEqual({ defaultThinkingLevel: "low" });
  });
});
