// The Copilot CLI provider against real files in a sandboxed COPILOT_HOME (no Copilot binary needed: it only reads
// the file; test/live/copilot.test.ts checks that the real CLI runs what this writes).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makePackageRoot, makeWorld, readText } from "../../../test/install-world.ts";
import { makeSandbox, type Sandbox } from "../../../test/sandbox.ts";
import { runInstaller } from "../../install/installer.ts";
import type { InstallContext } from "../../install/context.ts";
import { shellQuote } from "../../core/shell-quote.ts";
import { installersFor } from "../installers.ts";
import { copilotDoctor } from "./doctor.ts";
import { COPILOT_HOOKS } from "./install.ts";

let sandbox: Sandbox;
let home: string;
let hooksFile: string;
let mcpFile: string;
beforeEach(() => {
  sandbox = makeSandbox();
  home = sandbox.env.COPILOT_HOME as string;
  hooksFile = join(home, "hooks", "tongs-agents.json");
  mcpFile = join(home, "mcp-config.json");
});
afterEach(() => sandbox.cleanup());

const worldAt = (rootName: string): InstallContext => makeWorld(sandbox, { packageRoot: makePackageRoot(join(sandbox.root, rootName)) });
const run = async (world: InstallContext, mode: "install" | "uninstall", dryRun = false) =>
  runInstaller(world, { harnesses: await installersFor(["copilot"]), mode, dryRun, options: [] });
const put = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
};
const USER_HOOKS = '{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "say done"}]}}\n';

describe("Copilot CLI install", () => {
  it("writes our own hooks file in Copilot's format, one command per event, and is idempotent", async () => {
    const world = worldAt("pkg a");
    const report = await run(world, "install");
    expect(report.ok).toBe(true);
    const data = JSON.parse(readText(hooksFile));
    expect(Object.keys(data)).toEqual(["version", "hooks"]);
    expect(data.version).toBe(1);
    expect(Object.keys(data.hooks)).toEqual(COPILOT_HOOKS.map((spec) => spec.event));
    const node = process.execPath;
    // The shim by default on Linux (install --hook sync: the synchronous hook; the switch is tested below).
    const shim = join(world.packageRoot, "bin", "tongs-agents-hook.sh");
    expect(data.hooks.preToolUse).toEqual([
      { type: "command", bash: `/bin/sh ${shellQuote(shim)} ${shellQuote(node)} tool-use --agent copilot`, timeoutSec: 5 },
    ]);
    expect(data.hooks.permissionRequest).toBeUndefined();
    const again = await run(world, "install");
    expect(again.harnesses[0]?.steps).toEqual([]);
    const doctor = await copilotDoctor(world);
    expect(doctor.hooks.every((check) => check.status === "current")).toBe(true);
    expect(doctor.problems).toEqual([]);
  });

  it("--dry-run changes nothing and lists exactly what install then does", async () => {
    const world = worldAt("pkg");
    const dry = await run(world, "install", true);
    expect(existsSync(hooksFile)).toBe(false);
    const done = await run(world, "install");
    const strip = (steps: readonly { path?: string; change?: string; diff?: readonly string[] }[]) =>
      steps.map(({ path, change, diff }) => ({ path, change, diff }));
    expect(strip(dry.harnesses[0]?.steps ?? [])).toEqual(strip(done.harnesses[0]?.steps ?? []));
    expect(dry.harnesses[0]?.steps[0]).toMatchObject({ path: hooksFile, change: "create", status: "planned" });
  });

  it("rewrites its file in place when the installation moved, and doctor calls the old one outdated", async () => {
    await run(worldAt("old"), "install");
    const moved = worldAt("moved/tongs-agents");
    expect((await copilotDoctor(moved)).hooks.map((check) => check.status)).toEqual(COPILOT_HOOKS.map(() => "outdated"));
    const report = await run(moved, "install");
    expect(report.harnesses[0]?.steps.map((step) => [step.path, step.change])).toEqual([
      [hooksFile, "modify"],
      [mcpFile, "modify"],
    ]);
    expect(readText(hooksFile)).toContain(join(moved.packageRoot, "bin", "tongs-agents-hook.sh"));
    expect(readText(hooksFile)).not.toContain(`${sandbox.root}/old/`);
    expect((await copilotDoctor(moved)).hooks.every((check) => check.status === "current")).toBe(true);
  });

  it("writes the hook as --hook says (shim or sync), each current for doctor, and switches in place", async () => {
    const world = worldAt("pkg");
    await run({ ...world, hookMode: "shim" }, "install");
    const shim = readText(hooksFile);
    expect(shim).toContain('"bash": "/bin/sh ');
    expect(shim).toContain("tongs-agents-hook.sh");
    expect((await copilotDoctor(world)).hooks.map((check) => check.status)).toEqual(COPILOT_HOOKS.map(() => "current"));
    expect((await run({ ...world, hookMode: "sync" }, "install")).harnesses[0]?.steps.map((step) => step.change)).toEqual(["modify"]);
    const sync = readText(hooksFile);
    expect(sync).not.toContain("tongs-agents-hook.sh");
    expect(sync).toContain("tongs-agents-hook.cjs");
    expect((await copilotDoctor(world)).hooks.map((check) => check.status)).toEqual(COPILOT_HOOKS.map(() => "current"));
    expect((await run({ ...world, hookMode: "shim" }, "install")).harnesses[0]?.steps.map((step) => step.change)).toEqual(["modify"]);
    expect(readText(hooksFile)).toBe(shim);
  });

  it("uninstall removes only our file: the user's hooks files stay byte for byte", async () => {
    const mine = join(home, "hooks", "mine.json");
    put(mine, USER_HOOKS);
    const world = worldAt("pkg");
    await run(world, "install");
    const removal = await run(world, "uninstall");
    expect(removal.ok).toBe(true);
    // Both files install created: the hooks file and mcp-config.json, which held only our server.
    expect(removal.harnesses[0]?.steps.map((step) => [step.path, step.change])).toEqual([
      [hooksFile, "delete"],
      [mcpFile, "delete"],
    ]);
    expect(existsSync(mcpFile)).toBe(false);
    expect(existsSync(hooksFile)).toBe(false);
    expect(readFileSync(mine, "utf8")).toBe(USER_HOOKS);
    expect((await run(world, "uninstall")).harnesses[0]?.steps).toEqual([]);
  });

  it("leaves a file at our path that is not ours (or one of ours edited by hand), and says so", async () => {
    const world = worldAt("pkg");
    put(hooksFile, USER_HOOKS);
    const install = await run(world, "install");
    expect(install.ok).toBe(false);
    expect(install.harnesses[0]?.findings[0]).toMatchObject({ severity: "conflict" });
    expect(readText(hooksFile)).toBe(USER_HOOKS);
    expect((await run(world, "uninstall")).harnesses[0]?.findings[0]).toMatchObject({ severity: "warning" });
    expect(readText(hooksFile)).toBe(USER_HOOKS);
    writeFileSync(hooksFile, "not json");
    expect((await run(world, "install")).ok).toBe(false);
    expect(readText(hooksFile)).toBe("not json");
  });

  it("doctor marks a hand-edited handler modified and the rest missing", async () => {
    const world = worldAt("pkg");
    await run(world, "install");
    const data = JSON.parse(readText(hooksFile));
    data.hooks.preToolUse[0].bash += " --verbose";
    data.hooks = { preToolUse: data.hooks.preToolUse };
    writeFileSync(hooksFile, JSON.stringify(data));
    const doctor = await copilotDoctor(world);
    expect(doctor.hooks.find((check) => check.event === "preToolUse")?.status).toBe("modified");
    expect(doctor.hooks.find((check) => check.event === "agentStop")?.status).toBe("missing");
    expect(doctor.ok).toBe(false);
    expect(readText(hooksFile)).toContain("--verbose");
    expect((await run(world, "install")).ok).toBe(false);
  });

  it("doctor reports Copilot's own switches that turn hooks off", async () => {
    const world = worldAt("pkg");
    await run(world, "install");
    // As Copilot writes config.json: comment lines above the object.
    put(
      join(home, "config.json"),
      `// User settings belong in settings.json.\n// This file is managed automatically.\n${JSON.stringify({ trustedFolders: ["/w"], disabledHooks: ["abc"] })}\n`,
    );
    put(join(home, "settings.json"), JSON.stringify({ disableAllHooks: true }));
    const doctor = await copilotDoctor(world);
    expect(doctor.ok).toBe(false);
    expect(doctor.todo.join("\n")).toMatch(/disableAllHooks/);
    expect(doctor.todo.join("\n")).toMatch(/config.json lists 1 disabled hook/);
    expect(doctor.problems).toEqual([]);
  });

  it("registers our MCP server in mcp-config.json as `copilot mcp add` writes it, beside the user's, and removes exactly it", async () => {
    // As Copilot 1.0.102 writes the file (`copilot mcp add other -- other-mcp`).
    const theirs =
      '{\n  "mcpServers": {\n    "other": {\n      "tools": [\n        "*"\n      ],\n      "type": "local",\n      "command": "other-mcp",\n      "args": []\n    }\n  }\n}';
    put(mcpFile, theirs);
    const world = worldAt("pkg");
    const dry = await run(world, "install", true);
    expect(dry.harnesses[0]?.steps.find((step) => step.path === mcpFile)?.diff?.join("\n")).toContain('"tongs-agents": {');
    expect(readText(mcpFile)).toBe(theirs);
    await run(world, "install");
    const cli = join(world.packageRoot, "bin", "tongs-agents.js");
    expect(JSON.parse(readText(mcpFile)).mcpServers).toEqual({
      other: { tools: ["*"], type: "local", command: "other-mcp", args: [] },
      "tongs-agents": { tools: ["*"], type: "local", command: process.execPath, args: [cli, "mcp"] },
    });
    expect((await copilotDoctor(world)).mcp).toBe("current");
    expect((await run(world, "install")).harnesses[0]?.steps).toEqual([]);
    await run(world, "uninstall");
    expect(readText(mcpFile)).toBe(theirs);
    expect((await copilotDoctor(world)).mcp).toBe("absent");
  });

  it("leaves an MCP entry of someone else's under our name, and says so", async () => {
    const theirs = JSON.stringify({ mcpServers: { "tongs-agents": { type: "local", command: "npx", args: ["tongs-agents", "mcp"] } } });
    put(mcpFile, theirs);
    const world = worldAt("pkg");
    const install = await run(world, "install");
    expect(install.ok).toBe(false);
    expect(install.harnesses[0]?.findings).toContainEqual(expect.objectContaining({ severity: "conflict" }));
    expect(readText(mcpFile)).toBe(theirs);
    const doctor = await copilotDoctor(world);
    expect(doctor.mcp).toBe("foreign");
    expect(doctor.problems.join("\n")).toContain("mcpServers.tongs-agents");
    await run(world, "uninstall");
    expect(readText(mcpFile)).toBe(theirs);
  });
});
