// The OpenCode provider against a sandboxed config dir (its one owned file needs no OpenCode CLI to install);
// test/live/opencode.test.ts checks that the real OpenCode 1.18.33 loads the file it writes.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeBinDir, makePackageRoot, makeWorld, readText } from "../../../test/install-world.ts";
import { makeSandbox, type Sandbox } from "../../../test/sandbox.ts";
import { runDoctor } from "../../install/doctor.ts";
import { runInstaller } from "../../install/installer.ts";
import type { InstallContext } from "../../install/context.ts";
import { installersFor } from "../installers.ts";
import { OPENCODE_PLUGIN_HEADER } from "./install.ts";

let sandbox: Sandbox;
let bin: string;
let pluginFile: string;
const configFile = () => join(sandbox.env.XDG_CONFIG_HOME as string, "opencode", "opencode.json");

beforeEach(() => {
  sandbox = makeSandbox();
  bin = makeBinDir(join(sandbox.root, "bin"), { opencode: "#!/bin/sh\necho 1.18.33\n" });
  pluginFile = join(sandbox.env.XDG_CONFIG_HOME as string, "opencode", "plugin", "tongs-agents.js");
});
afterEach(() => sandbox.cleanup());

/** A package root with the OpenCode plugin's entry point in place. */
function worldAt(rootName: string, extra: NodeJS.ProcessEnv = {}, path: string[] = [bin]): InstallContext {
  const root = makePackageRoot(join(sandbox.root, rootName));
  mkdirSync(join(root, "opencode-plugin"), { recursive: true });
  writeFileSync(join(root, "opencode-plugin", "index.js"), "export const createPlugin = () => async () => ({});\n");
  const world = makeWorld(sandbox, { packageRoot: root, path });
  return { ...world, env: { ...world.env, ...extra } };
}
const run = async (world: InstallContext, mode: "install" | "uninstall", dryRun = false) =>
  runInstaller(world, { harnesses: await installersFor(["opencode"]), mode, dryRun, options: [] });
const doctor = async (world: InstallContext) => (await runDoctor(world, await installersFor(["opencode"]))).harnesses[0];

describe("OpenCode plugin install", () => {
  it("writes one module that imports this installation's plugin with its Node.js and hook, and is idempotent", async () => {
    const world = worldAt("pkg a");
    expect((await run(world, "install")).ok).toBe(true);
    expect(readText(pluginFile)).toBe(
      [
        OPENCODE_PLUGIN_HEADER,
        `import { createPlugin } from ${JSON.stringify(join(world.packageRoot, "opencode-plugin", "index.js"))};`,
        "",
        `export const TongsAgents = createPlugin({ node: ${JSON.stringify(process.execPath)}, hook: ${JSON.stringify(join(world.packageRoot, "bin", "tongs-agents-hook.cjs"))} });`,
        "",
      ].join("\n"),
    );
    const before = readText(pluginFile);
    expect((await run(world, "install")).harnesses[0]?.steps).toEqual([]);
    expect(readText(pluginFile)).toBe(before);
    expect(await doctor(world)).toMatchObject({ harness: "opencode", bridge: "installed", version: "1.18.33", ok: true, problems: [] });
  });

  it("a dry run shows the file it would create and writes nothing", async () => {
    const report = await run(worldAt("pkg"), "install", true);
    expect(report.harnesses[0]?.steps).toMatchObject([
      { kind: "write", status: "planned", path: pluginFile, change: "create" },
      { kind: "write", status: "planned", path: configFile(), change: "create" },
    ]);
    expect(report.harnesses[0]?.steps[1]?.diff?.join("\n")).toContain('"tongs-agents": {');
    expect(existsSync(configFile())).toBe(false);
    expect(existsSync(pluginFile)).toBe(false);
  });

  it("rewrites the module in place when the installation moved; doctor calls the old one outdated", async () => {
    await run(worldAt("old place"), "install");
    const moved = worldAt("new place");
    expect(await doctor(moved)).toMatchObject({ bridge: "outdated" });
    const report = await run(moved, "install");
    expect(report.harnesses[0]?.steps).toMatchObject([
      { kind: "write", status: "done", change: "modify", path: pluginFile },
      { kind: "write", status: "done", change: "modify", path: configFile() },
    ]);
    expect(JSON.parse(readText(configFile())).mcp["tongs-agents"].command[1]).toBe(join(moved.packageRoot, "bin", "tongs-agents.js"));
    expect(readText(pluginFile)).toContain(JSON.stringify(join(moved.packageRoot, "opencode-plugin", "index.js")));
    expect(readText(pluginFile)).not.toContain("old place");
  });

  it("uninstall removes exactly the file it wrote, and leaves everything else in OpenCode's config as it was", async () => {
    const configDir = join(sandbox.env.XDG_CONFIG_HOME as string, "opencode");
    mkdirSync(join(configDir, "plugin"), { recursive: true });
    const config = '{\n  // theirs\n  "model": "fake/fake-model"\n}\n';
    writeFileSync(join(configDir, "opencode.json"), config);
    writeFileSync(join(configDir, "plugin", "theirs.js"), "export const Theirs = async () => ({});\n");
    const world = worldAt("pkg");
    // OpenCode reads comments and trailing commas, and so does the editor: the comment stays beside our server.
    const install = await run(world, "install");
    expect(install.ok).toBe(true);
    const installed = readText(join(configDir, "opencode.json"));
    expect(installed).toContain("// theirs");
    expect(installed).toContain('"mcp": {\n    "tongs-agents": {');
    expect(await doctor(world)).toMatchObject({ bridge: "installed", mcp: "current" });
    const dry = await run(world, "uninstall", true);
    expect(dry.harnesses[0]?.steps).toMatchObject([
      { kind: "delete", status: "planned", path: pluginFile },
      { kind: "write", status: "planned", path: join(configDir, "opencode.json") },
    ]);
    expect(existsSync(pluginFile)).toBe(true);
    expect((await run(world, "uninstall")).ok).toBe(true);
    expect(existsSync(pluginFile)).toBe(false);
    expect(readText(join(configDir, "opencode.json"))).toBe(config);
    expect(readText(join(configDir, "plugin", "theirs.js"))).toBe("export const Theirs = async () => ({});\n");
    expect((await run(world, "uninstall")).harnesses[0]?.findings).toMatchObject([{ severity: "note" }]);
    expect(await doctor(world)).toMatchObject({ bridge: "missing", ok: false });
  });

  it("keeps the user's opencode.jsonc (trailing commas too) when that is the file they keep; uninstall restores its bytes", async () => {
    const configDir = join(sandbox.env.XDG_CONFIG_HOME as string, "opencode");
    mkdirSync(configDir, { recursive: true });
    const config = '{\n  "model": "fake/fake-model", // mine\n  "mcp": {\n    "x": {"type": "remote", "url": "http://x"},\n  },\n}\n';
    writeFileSync(join(configDir, "opencode.jsonc"), config);
    const world = worldAt("pkg");
    expect((await run(world, "install")).ok).toBe(true);
    expect(existsSync(join(configDir, "opencode.json"))).toBe(false);
    expect(readText(join(configDir, "opencode.jsonc"))).toContain('"x": {"type": "remote", "url": "http://x"},\n    "tongs-agents": {');
    expect(await doctor(world)).toMatchObject({ mcp: "current" });
    // A second file created later does not hide our entry from uninstall.
    writeFileSync(join(configDir, "opencode.json"), '{"theme": "dark"}\n');
    expect((await run(world, "install")).harnesses[0]?.steps).toEqual([]);
    expect((await run(world, "uninstall")).ok).toBe(true);
    expect(readText(join(configDir, "opencode.jsonc"))).toBe(config);
    expect(readText(join(configDir, "opencode.json"))).toBe('{"theme": "dark"}\n');
  });

  it("refuses a file at its path that it did not write, on install and uninstall, and doctor says so", async () => {
    mkdirSync(join(pluginFile, ".."), { recursive: true });
    writeFileSync(pluginFile, "export const Mine = async () => ({});\n");
    const world = worldAt("pkg");
    for (const mode of ["install", "uninstall"] as const) {
      const report = await run(world, mode);
      expect(report.ok).toBe(false);
      expect(report.harnesses[0]?.findings[0]?.message).toContain("was not written by tongs-agents");
    }
    expect(readFileSync(pluginFile, "utf8")).toBe("export const Mine = async () => ({});\n");
    expect(await doctor(world)).toMatchObject({ bridge: "unowned", ok: false });
  });

  it("doctor reports when OpenCode would not load the plugin (OPENCODE_PURE, --pure) or is not installed", async () => {
    await run(worldAt("pkg"), "install");
    const pure = await doctor(worldAt("pkg", { OPENCODE_PURE: "1" }));
    expect(pure).toMatchObject({ bridge: "installed", ok: false });
    expect(pure?.problems.join("\n")).toContain("OPENCODE_PURE");
    const absent = await doctor(worldAt("pkg", {}, []));
    expect(absent).toMatchObject({ binary: null, version: null, ok: false });
    expect(absent?.todo.join("\n")).toContain("npm install -g opencode-ai");
  });

  it("installs without OpenCode on PATH, with a note", async () => {
    const report = await run(worldAt("pkg", {}, []), "install");
    expect(report.ok).toBe(true);
    expect(report.harnesses[0]?.findings.map((finding) => finding.message).join("\n")).toContain("opencode is not on PATH");
    expect(existsSync(pluginFile)).toBe(true);
  });

  it("registers our MCP server under `mcp` in opencode.json beside the user's settings, and removes exactly it", async () => {
    const config =
      '{\n  "model": "fake/fake-model",\n  "mcp": {\n    "other": {"type": "remote", "url": "http://127.0.0.1:1/mcp"}\n  }\n}\n';
    mkdirSync(join(configFile(), ".."), { recursive: true });
    writeFileSync(configFile(), config);
    const world = worldAt("pkg");
    expect((await run(world, "install")).ok).toBe(true);
    expect(JSON.parse(readText(configFile())).mcp).toEqual({
      other: { type: "remote", url: "http://127.0.0.1:1/mcp" },
      "tongs-agents": { type: "local", command: [process.execPath, join(world.packageRoot, "bin", "tongs-agents.js"), "mcp"] },
    });
    expect(await doctor(world)).toMatchObject({ mcp: "current", ok: true });
    expect((await run(world, "install")).harnesses[0]?.steps).toEqual([]);
    await run(world, "uninstall");
    expect(readText(configFile())).toBe(config);
    expect(await doctor(world)).toMatchObject({ mcp: "absent" });
  });

  it("leaves someone else's `mcp.tongs-agents` as it is, and doctor says it is not ours", async () => {
    const config = JSON.stringify({ mcp: { "tongs-agents": { type: "local", command: ["npx", "tongs-agents", "mcp"], enabled: true } } });
    mkdirSync(join(configFile(), ".."), { recursive: true });
    writeFileSync(configFile(), config);
    const world = worldAt("pkg");
    const install = await run(world, "install");
    expect(install.ok).toBe(false);
    expect(install.harnesses[0]?.findings).toContainEqual(expect.objectContaining({ severity: "conflict" }));
    expect(readText(configFile())).toBe(config);
    expect(await doctor(world)).toMatchObject({ mcp: "foreign", ok: false });
    await run(world, "uninstall");
    expect(readText(configFile())).toBe(config);
  });
});
