// The Kimi Code provider against real files in a sandboxed KIMI_CODE_HOME (no Kimi binary needed: it only reads and
// edits config.toml and mcp.json; test/live/kimi.test.ts runs what this writes in the real CLI).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makePackageRoot, makeWorld, readText } from "../../../test/install-world.ts";
import { makeSandbox, type Sandbox } from "../../../test/sandbox.ts";
import { shellQuote } from "../../core/shell-quote.ts";
import type { InstallContext } from "../../install/context.ts";
import { runInstaller } from "../../install/installer.ts";
import { installersFor } from "../installers.ts";
import { kimiDoctor } from "./doctor.ts";
import { KIMI_HOOKS } from "./install.ts";

let sandbox: Sandbox;
let config: string;
let mcpFile: string;
beforeEach(() => {
  sandbox = makeSandbox();
  const home = sandbox.env.KIMI_CODE_HOME as string;
  config = join(home, "config.toml");
  mcpFile = join(home, "mcp.json");
});
afterEach(() => sandbox.cleanup());

const worldAt = (rootName: string): InstallContext => makeWorld(sandbox, { packageRoot: makePackageRoot(join(sandbox.root, rootName)) });
const run = async (world: InstallContext, mode: "install" | "uninstall", dryRun = false) =>
  runInstaller(world, { harnesses: await installersFor(["kimi"]), mode, dryRun, options: [] });
const put = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
};
const hooksOf = (text: string) => (parse(text) as { hooks?: Record<string, unknown>[] }).hooks ?? [];

/** A config as a user keeps it: comments, a model, a table after, and a hook of their own. */
const USER_CONFIG = `# my Kimi Code settings
default_model = "kimi-for-coding"

[[hooks]]
event = "Stop"   # ring the bell
command = "printf '\\\\a'"

[loop_control]
max_steps_per_turn = 50
`;

describe("Kimi Code install", () => {
  it("adds one [[hooks]] table per event to a new config.toml, runs our command, and is idempotent", async () => {
    const world = worldAt("pkg a");
    const report = await run(world, "install");
    expect(report.ok).toBe(true);
    const hooks = hooksOf(readText(config));
    expect(hooks.map((hook) => hook.event)).toEqual(KIMI_HOOKS.map((spec) => spec.event));
    const shim = join(world.packageRoot, "bin", "tongs-agents-hook.sh");
    expect(hooks.find((hook) => hook.event === "PreToolUse")).toEqual({
      event: "PreToolUse",
      command: `/bin/sh ${shellQuote(shim)} ${shellQuote(process.execPath)} tool-use --agent kimi`,
      timeout: 5,
    });
    expect(readText(config)).toMatch(/^\[\[hooks\]\]\nevent = "SessionStart"\n/);
    expect((await run(world, "install")).harnesses[0]?.steps).toEqual([]);
    const doctor = await kimiDoctor(world);
    expect(doctor.hooks.map((check) => check.status)).toEqual(KIMI_HOOKS.map(() => "current"));
    expect(doctor.mcp).toBe("current");
    expect(doctor.problems).toEqual([]);
  });

  it("keeps the user's config byte for byte around our tables, and uninstall gives it back exactly", async () => {
    put(config, USER_CONFIG);
    const world = worldAt("pkg");
    await run(world, "install");
    const text = readText(config);
    // Ours go after the user's own [[hooks]], before the next table; every line of theirs is still there, in order.
    expect(text.startsWith(USER_CONFIG.slice(0, USER_CONFIG.indexOf("\n\n[loop_control]")))).toBe(true);
    expect(text.endsWith("\n\n[loop_control]\nmax_steps_per_turn = 50\n")).toBe(true);
    expect(hooksOf(text)[0]).toEqual({ event: "Stop", command: "printf '\\a'" });
    expect(hooksOf(text)).toHaveLength(1 + KIMI_HOOKS.length);
    const removal = await run(world, "uninstall");
    expect(removal.ok).toBe(true);
    expect(readText(config)).toBe(USER_CONFIG);
    // mcp.json held only our server and install created it: it goes.
    expect(existsSync(mcpFile)).toBe(false);
    expect((await run(world, "uninstall")).harnesses[0]?.steps).toEqual([]);
  });

  it("a config.toml install created is removed by uninstall", async () => {
    const world = worldAt("pkg");
    await run(world, "install");
    expect((await run(world, "uninstall")).harnesses[0]?.steps.map((step) => [step.path, step.change])).toEqual([
      [config, "delete"],
      [mcpFile, "delete"],
    ]);
    expect(existsSync(config)).toBe(false);
  });

  it("--dry-run changes nothing and lists exactly what install then does", async () => {
    put(config, USER_CONFIG);
    const world = worldAt("pkg");
    const dry = await run(world, "install", true);
    expect(readText(config)).toBe(USER_CONFIG);
    const done = await run(world, "install");
    const strip = (steps: readonly { path?: string; change?: string; diff?: readonly string[] }[]) =>
      steps.map(({ path, change, diff }) => ({ path, change, diff }));
    expect(strip(dry.harnesses[0]?.steps ?? [])).toEqual(strip(done.harnesses[0]?.steps ?? []));
  });

  it("rewrites its tables in place when the installation moved, or the hook mode changed; doctor calls old ones outdated", async () => {
    put(config, USER_CONFIG);
    await run(worldAt("old"), "install");
    const moved = worldAt("moved/tongs-agents");
    expect((await kimiDoctor(moved)).hooks.map((check) => check.status)).toEqual(KIMI_HOOKS.map(() => "outdated"));
    const before = readText(config);
    await run(moved, "install");
    const after = readText(config);
    expect(after.split("\n").length).toBe(before.split("\n").length);
    expect(after).not.toContain(`${sandbox.root}/old/`);
    expect((parse(after) as { loop_control: unknown }).loop_control).toEqual({ max_steps_per_turn: 50 });
    expect((await kimiDoctor(moved)).hooks.every((check) => check.status === "current")).toBe(true);
    await run({ ...moved, hookMode: "sync" }, "install");
    expect(readText(config)).toContain("tongs-agents-hook.cjs");
    expect(readText(config)).not.toContain("tongs-agents-hook.sh");
    await run({ ...moved, hookMode: "shim" }, "install");
    expect(readText(config)).toBe(after);
    await run(moved, "uninstall");
    expect(readText(config)).toBe(USER_CONFIG);
  });

  it("leaves a table of ours edited by hand, says so, and doctor calls it modified", async () => {
    const world = worldAt("pkg");
    await run(world, "install");
    const edited = readText(config).replace('event = "Stop"\n', 'event = "Stop"\nmatcher = "x"\n');
    writeFileSync(config, edited);
    const doctor = await kimiDoctor(world);
    expect(doctor.hooks.find((check) => check.event === "Stop")?.status).toBe("modified");
    const again = await run(world, "install");
    expect(again.ok).toBe(false);
    expect(again.harnesses[0]?.findings).toContainEqual(expect.objectContaining({ severity: "conflict" }));
    await run(world, "uninstall");
    expect(hooksOf(readText(config))).toEqual([expect.objectContaining({ event: "Stop", matcher: "x" })]);
  });

  it("refuses a config.toml that is not TOML, or holds hooks as an inline array, and leaves it as it is", async () => {
    const world = worldAt("pkg");
    put(config, "this is = = not toml\n");
    const broken = await run(world, "install");
    expect(broken.ok).toBe(false);
    expect(readText(config)).toBe("this is = = not toml\n");
    const inline = 'hooks = [{ event = "Stop", command = "true" }]\n';
    put(config, inline);
    const refused = await run(world, "install");
    expect(refused.ok).toBe(false);
    expect(refused.harnesses[0]?.findings.map((finding) => finding.message).join("\n")).toMatch(/inline array/);
    expect(readText(config)).toBe(inline);
  });

  it("registers our MCP server in mcp.json beside the user's and removes exactly it", async () => {
    const theirs = '{\n  "mcpServers": {\n    "other": {\n      "command": "other-mcp",\n      "args": []\n    }\n  }\n}\n';
    put(mcpFile, theirs);
    const world = worldAt("pkg");
    await run(world, "install");
    expect(JSON.parse(readText(mcpFile)).mcpServers).toEqual({
      other: { command: "other-mcp", args: [] },
      "tongs-agents": { command: process.execPath, args: [join(world.packageRoot, "bin", "tongs-agents.js"), "mcp"] },
    });
    await run(world, "uninstall");
    expect(readText(mcpFile)).toBe(theirs);
  });
});
