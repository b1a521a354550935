// Live: the real Claude Code CLI (pinned in harnesses.json) and our installer: `claude mcp add` really registers the
// server, and a real `claude -p` session runs the hooks the installer wrote.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/install/doctor.ts";
import { runInstaller } from "../../src/install/installer.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { makePackageRoot } from "../install-world.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import { ROOT } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { listAll, liveWorld } from "./live-world.ts";
import { installersFor } from "../../src/harnesses/installers.ts";

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let claudeJson: string;

beforeEach(async () => {
  sandbox = makeSandbox();
  provider = await startProvider({ port: 0 });
  claudeJson = join(sandbox.env.CLAUDE_CONFIG_DIR as string, ".claude.json");
});
afterEach(async () => {
  await provider.stop();
  sandbox.cleanup();
});

const worldFor = (packageRoot: string) =>
  liveWorld(sandbox, packageRoot, [harnessBinDir("claude")], { ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_AUTH_TOKEN: "not-a-key" });
const run = async (world: InstallContext, mode: "install" | "uninstall") =>
  runInstaller(world, { harnesses: await installersFor(["claude"]), mode, dryRun: false, options: [] });
const server = () => JSON.parse(readFileSync(claudeJson, "utf8")).mcpServers?.["tongs-agents"];

describe(`Claude Code ${HARNESS_PACKAGES.claude.version} (live)`, { timeout: 180_000 }, () => {
  it("registers the MCP server with the real `claude mcp add`, once, and a real session runs our hooks", async () => {
    const world = worldFor(ROOT);
    const report = await run(world, "install");
    expect(report.ok).toBe(true);
    const ran = report.harnesses[0]?.steps.filter((step) => step.kind === "run");
    expect(ran?.map((step) => [step.command?.slice(1), step.status])).toEqual([
      [["mcp", "add", "--scope", "user", "tongs-agents", "--", process.execPath, join(ROOT, "bin", "tongs-agents.js"), "mcp"], "done"],
    ]);
    expect(server()).toEqual({ type: "stdio", command: process.execPath, args: [join(ROOT, "bin", "tongs-agents.js"), "mcp"], env: {} });
    // Claude Code starts the registered server and talks MCP to it.
    const listed = await execa("claude", ["mcp", "list"], {
      env: world.env,
      extendEnv: false,
      cwd: sandbox.root,
      input: "",
      timeout: 90_000,
      reject: false,
    });
    expect(listed.stdout).toMatch(/tongs-agents: .*tongs-agents\.js mcp - ✔ Connected/);
    const before = readFileSync(claudeJson);
    expect((await run(world, "install")).harnesses[0]?.steps).toEqual([]);
    expect(readFileSync(claudeJson)).toEqual(before);
    const doctor = await runDoctor(world, await installersFor(["claude"]));
    expect(doctor.harnesses[0]).toMatchObject({ version: `${HARNESS_PACKAGES.claude.version} (Claude Code)`, mcp: "current" });
    expect(doctor.harnesses[0]?.hooks.every((hook) => hook.status === "current")).toBe(true);

    const work = join(sandbox.root, "work");
    mkdirSync(work);
    const session = await execa("claude", ["-p", "say hello"], {
      env: world.env,
      extendEnv: false,
      cwd: work,
      input: "",
      timeout: 90_000,
      reject: false,
    });
    expect(session.exitCode, session.stderr).toBe(0);
    expect(provider.requests).toContainEqual(expect.objectContaining({ method: "POST", path: "/v1/messages?beta=true", decision: "text" }));
    // The hook shim returns before its detached worker applies the event: wait (bounded) for SessionEnd to land.
    let sessions = (await listAll(world.env)).filter((record) => record.harness === "claude");
    for (let waited = 0; waited < 15_000 && sessions[0]?.recorded_status !== "ended"; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      sessions = (await listAll(world.env)).filter((record) => record.harness === "claude");
    }
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ identity: "process", recorded_status: "ended", last_event: "claude.session-end" });
  });

  it("re-registers a moved installation (claude mcp remove, then add) and uninstall removes it", async () => {
    const first = worldFor(makePackageRoot(join(sandbox.root, "first place")));
    await run(first, "install");
    const moved = worldFor(makePackageRoot(join(sandbox.root, "moved place")));
    const report = await run(moved, "install");
    expect(report.harnesses[0]?.steps.filter((step) => step.kind === "run").map((step) => step.command?.slice(1, 3))).toEqual([
      ["mcp", "remove"],
      ["mcp", "add"],
    ]);
    expect(server().args[0]).toBe(join(moved.packageRoot, "bin", "tongs-agents.js"));
    const removal = await run(moved, "uninstall");
    expect(removal.ok).toBe(true);
    expect(server()).toBeUndefined();
    // The real `claude mcp remove` leaves "mcpServers": {}; uninstall removes it (Claude's own keys stay).
    expect(JSON.parse(readFileSync(claudeJson, "utf8"))).not.toHaveProperty("mcpServers");
    expect(JSON.parse(readFileSync(claudeJson, "utf8"))).toHaveProperty("firstStartVersion", HARNESS_PACKAGES.claude.version);
    // settings.json did not exist before install: install created it, so uninstall removes it.
    expect(existsSync(join(sandbox.env.CLAUDE_CONFIG_DIR as string, "settings.json"))).toBe(false);
  });
});
