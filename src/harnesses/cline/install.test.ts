// The Cline provider against real files in a sandboxed CLINE_DIR (no Cline binary needed: it only writes hook scripts
// and cline_mcp_settings.json; test/live/cline.test.ts runs what this writes in the real CLI), and doctor's view of a
// stand-in `cline` on PATH: its version against the proven set, and what Cline can and cannot report.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeBinDir, makePackageRoot, makeWorld, readText } from "../../../test/install-world.ts";
import { makeSandbox, type Sandbox } from "../../../test/sandbox.ts";
import type { InstallContext } from "../../install/context.ts";
import { runInstaller } from "../../install/installer.ts";
import { installersFor } from "../installers.ts";
import { reportRows } from "../reports.ts";
import { checkVersion } from "../versions.ts";
import { clineDoctor } from "./doctor.ts";
import { clineHarness } from "./harness.ts";
import { CLINE_HOOKS } from "./install.ts";

let sandbox: Sandbox;
let hooksDir: string;
let mcpFile: string;
beforeEach(() => {
  sandbox = makeSandbox();
  const clineDir = sandbox.env.CLINE_DIR as string;
  hooksDir = join(clineDir, "hooks");
  mcpFile = join(clineDir, "data", "settings", "cline_mcp_settings.json");
});
afterEach(() => sandbox.cleanup());

const worldAt = (rootName: string, path: readonly string[] = []): InstallContext =>
  makeWorld(sandbox, { packageRoot: makePackageRoot(join(sandbox.root, rootName)), path });
const run = async (world: InstallContext, mode: "install" | "uninstall", dryRun = false) =>
  runInstaller(world, { harnesses: await installersFor(["cline"]), mode, dryRun, options: [] });
const OUR_FILES = CLINE_HOOKS.map((spec) => `${spec.event}.sh`).sort();
const listHooks = () => readdirSync(hooksDir).sort();
const USER_HOOK = "#!/bin/sh\n# my own: ring the bell when a task completes\nprintf '\\a'\n";

describe("Cline install", () => {
  it("writes one script per event (Cline runs a .sh with bash) that execs our hook command, and a second install changes nothing", async () => {
    const world = worldAt("pkg a");
    expect((await run(world, "install")).ok).toBe(true);
    expect(listHooks()).toEqual(OUR_FILES);
    const script = readText(join(hooksDir, "PreToolUse.sh")).split("\n");
    expect(script[0]).toBe("#!/bin/sh");
    expect(script[2]).toMatch(/^exec \/bin\/sh .*tongs-agents-hook\.sh.* tool-use --agent cline$/);
    expect(script[2]).toContain(join(sandbox.root, "pkg a"));
    const before = Object.fromEntries(OUR_FILES.map((name) => [name, readText(join(hooksDir, name))]));
    const mcpBefore = readText(mcpFile);
    const again = await run(world, "install");
    expect(again.ok).toBe(true);
    expect(again.harnesses[0]?.steps).toEqual([]);
    expect(Object.fromEntries(OUR_FILES.map((name) => [name, readText(join(hooksDir, name))]))).toEqual(before);
    expect(readText(mcpFile)).toBe(mcpBefore);
    const doctor = await clineDoctor(world);
    expect(doctor.hooks.map((check) => check.status)).toEqual(CLINE_HOOKS.map(() => "current"));
    expect(doctor.mcp).toBe("current");
    expect(doctor.problems).toEqual([]);
  });

  it("updates its scripts in place when the installation moved: no second copy; doctor calls the old ones outdated", async () => {
    await run(worldAt("old"), "install");
    const moved = worldAt("moved/tongs-agents");
    expect((await clineDoctor(moved)).hooks.map((check) => check.status)).toEqual(CLINE_HOOKS.map(() => "outdated"));
    const update = await run(moved, "install");
    expect(update.ok).toBe(true);
    expect(update.harnesses[0]?.steps.filter((step) => step.path?.startsWith(hooksDir)).map((step) => step.change)).toEqual(
      CLINE_HOOKS.map(() => "modify"),
    );
    expect(listHooks()).toEqual(OUR_FILES);
    for (const name of OUR_FILES) {
      expect(readText(join(hooksDir, name))).not.toContain(`${sandbox.root}/old/`);
      expect(readText(join(hooksDir, name))).toContain(`${sandbox.root}/moved/tongs-agents/`);
    }
    expect(JSON.parse(readText(mcpFile)).mcpServers["tongs-agents"].transport.args[0]).toContain(`${sandbox.root}/moved/tongs-agents/`);
    expect(Object.keys(JSON.parse(readText(mcpFile)).mcpServers)).toEqual(["tongs-agents"]);
    expect((await clineDoctor(moved)).hooks.every((check) => check.status === "current")).toBe(true);
  });

  it("never overwrites the user's own hook of the same name: a conflict, and uninstall leaves it", async () => {
    mkdirSync(hooksDir, { recursive: true });
    writeFileSync(join(hooksDir, "TaskComplete.sh"), USER_HOOK, { mode: 0o755 });
    const world = worldAt("pkg");
    const report = await run(world, "install");
    expect(report.ok).toBe(false);
    expect(report.harnesses[0]?.findings).toContainEqual(
      expect.objectContaining({
        severity: "conflict",
        message: expect.stringContaining(`${join(hooksDir, "TaskComplete.sh")} is not a hook file`),
      }),
    );
    expect(readText(join(hooksDir, "TaskComplete.sh"))).toBe(USER_HOOK);
    // The others are ours all the same; doctor says the one event is missing.
    expect(listHooks()).toEqual(OUR_FILES);
    expect((await clineDoctor(world)).hooks.find((check) => check.event === "TaskComplete")?.status).toBe("missing");
    const removal = await run(world, "uninstall");
    expect(listHooks()).toEqual(["TaskComplete.sh"]);
    expect(readText(join(hooksDir, "TaskComplete.sh"))).toBe(USER_HOOK);
    expect(removal.harnesses[0]?.findings).toContainEqual(expect.objectContaining({ severity: "warning" }));
  });

  it("a script of ours edited by hand is left alone, reported, and doctor calls it modified", async () => {
    const world = worldAt("pkg");
    await run(world, "install");
    const path = join(hooksDir, "TaskError.sh");
    const edited = `${readText(path)}echo extra\n`;
    writeFileSync(path, edited);
    expect((await clineDoctor(world)).hooks.find((check) => check.event === "TaskError")?.status).toBe("modified");
    const again = await run(world, "install");
    expect(again.ok).toBe(false);
    expect(readText(path)).toBe(edited);
    await run(world, "uninstall");
    expect(listHooks()).toEqual(["TaskError.sh"]);
  });

  it("uninstall removes only our scripts and our MCP entry, beside the user's server and hooks", async () => {
    mkdirSync(hooksDir, { recursive: true });
    writeFileSync(join(hooksDir, "TaskStart.py"), USER_HOOK);
    const theirs =
      '{\n  "mcpServers": {\n    "other": {\n      "transport": {\n        "type": "stdio",\n        "command": "other-mcp",\n        "args": []\n      }\n    }\n  }\n}\n';
    mkdirSync(join(mcpFile, ".."), { recursive: true });
    writeFileSync(mcpFile, theirs);
    const world = worldAt("pkg");
    expect((await run(world, "install")).ok).toBe(true);
    expect(listHooks()).toEqual([...OUR_FILES, "TaskStart.py"].sort());
    expect(Object.keys(JSON.parse(readText(mcpFile)).mcpServers)).toEqual(["other", "tongs-agents"]);
    expect((await run(world, "uninstall")).ok).toBe(true);
    expect(listHooks()).toEqual(["TaskStart.py"]);
    expect(readText(join(hooksDir, "TaskStart.py"))).toBe(USER_HOOK);
    expect(readText(mcpFile)).toBe(theirs);
    expect((await run(world, "uninstall")).harnesses[0]?.steps).toEqual([]);
  });

  it("an MCP settings file install created goes with uninstall, and --dry-run changes nothing", async () => {
    const world = worldAt("pkg");
    const dry = await run(world, "install", true);
    expect(dry.harnesses[0]?.steps.length).toBe(CLINE_HOOKS.length + 1);
    expect(existsSync(hooksDir)).toBe(false);
    expect(existsSync(mcpFile)).toBe(false);
    await run(world, "install");
    await run(world, "uninstall");
    expect(existsSync(mcpFile)).toBe(false);
    // The hooks directory install created, empty again, goes too.
    expect(existsSync(hooksDir)).toBe(false);
  });
});

describe("Cline doctor", () => {
  /** A world with a stand-in `cline` on PATH that prints `printed` for --version. */
  const withCline = (printed: string) =>
    worldAt("pkg", [makeBinDir(join(sandbox.root, `bin-${printed}`), { cline: `#!/bin/sh\necho '${printed}'\n` })]);

  it("reads the installed version and checks it against the proven set", async () => {
    const proven = await clineDoctor(withCline("3.0.65"));
    expect(proven.version).toBe("3.0.65");
    expect(checkVersion(clineHarness, proven.version)).toEqual({ status: "proven", version: "3.0.65", proven_on: ["3.0.65"] });
    const other = await clineDoctor(withCline("3.1.0"));
    expect(other.binary).toBe(join(sandbox.root, "bin-3.1.0", "cline"));
    expect(checkVersion(clineHarness, other.version)).toMatchObject({
      status: "unproven",
      version: "3.1.0",
      meaning: expect.stringContaining("proven on Cline 3.0.65, not 3.1.0"),
    });
  });

  it("says what Cline cannot report: no permission hook, no session start, no end", () => {
    const rows = Object.fromEntries(reportRows(clineHarness).map((row) => [row.state, row]));
    expect(rows.waiting).toMatchObject({ by: "none", why: expect.stringContaining("no permission hook") });
    expect(rows.started).toMatchObject({ by: "none" });
    expect(rows.ended).toMatchObject({ by: "none", why: expect.stringContaining("/exit fires no hook") });
    expect(rows.error).toMatchObject({ by: "hook" });
  });
});
