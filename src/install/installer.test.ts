// The installer against real files in a sandboxed HOME (Claude Code and Codex; Pi has its own file). No harness CLI is
// on PATH here, so Claude's MCP server is written into .claude.json directly; test/live/ runs the real CLIs.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeBinDir, makePackageRoot, makeWorld, readText } from "../../test/install-world.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { CLAUDE_HOOKS } from "./claude.ts";
import { CODEX_HOOKS } from "./codex.ts";
import { codexTrustHash, codexTrustKey } from "./codex-trust.ts";
import { diffLines } from "./diff.ts";
import { parseOurCommand } from "./hook-entries.ts";
import { setJsonValue } from "./json-text.ts";
import { shellQuote } from "./command.ts";
import { runInstaller } from "./installer.ts";
import type { HarnessId, InstallReport } from "./plan.ts";
import { parseTomlDocument } from "./toml-text.ts";
import type { InstallWorld } from "./world.ts";

let sandbox: Sandbox;
let world: InstallWorld;
let root: string;
let settings: string;
let claudeJson: string;
let hooksJson: string;
let configToml: string;

beforeEach(() => {
  sandbox = makeSandbox();
  // Spaces, quotes and a dollar sign: the hook command must survive `sh -c` whatever the install path is.
  root = makePackageRoot(join(sandbox.root, `lib dir/it's "tongs" $HOME`));
  world = makeWorld(sandbox, { packageRoot: root });
  settings = join(sandbox.env.CLAUDE_CONFIG_DIR as string, "settings.json");
  claudeJson = join(sandbox.env.CLAUDE_CONFIG_DIR as string, ".claude.json");
  hooksJson = join(sandbox.env.CODEX_HOME as string, "hooks.json");
  configToml = join(sandbox.env.CODEX_HOME as string, "config.toml");
});
afterEach(() => sandbox.cleanup());

const run = (mode: "install" | "uninstall", options: { harnesses?: HarnessId[]; dryRun?: boolean; trust?: boolean; in?: InstallWorld } = {}): Promise<InstallReport> =>
  runInstaller(options.in ?? world, { harnesses: options.harnesses ?? ["claude", "codex"], dryRun: options.dryRun ?? false, mode, trustCodexHooks: options.trust ?? false });

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const json = (path: string) => JSON.parse(readText(path));
const commands = (path: string, event: string): string[] => (json(path).hooks?.[event] ?? []).flatMap((group: { hooks: { command: string }[] }) => group.hooks.map((hook) => hook.command));
const snapshot = (paths: string[]) => Object.fromEntries(paths.map((path) => [path, existsSync(path) ? readFileSync(path) : null]));

const USER_SETTINGS = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "hooks": {
    "Stop": [
      {"matcher": "", "hooks": [{"type": "command", "command": "notify-send 'Claude is done'"}]}
    ],
    "PreCompact": [{"hooks": [{"type": "command", "command": "/home/me/bin/backup"}]}]
  },
  "2": "an integer-like key that JSON.stringify would move"
}
`;
const USER_CODEX_HOOKS = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 10}]}]}}\n`;
const USER_CONFIG = `# Codex config, hand written
model = "o3"   # the model I like
approval_policy = "on-request"

[mcp_servers.docs] # my docs server
command = "docs-mcp"
args = ["--port", "0"]

# projects
[projects."/home/me/work"]
trust_level = "trusted"

[hooks.state."/elsewhere/hooks.json:stop:0:0"]
trusted_hash = "sha256:0000"
`;

describe("install", () => {
  it("installs every hook with absolute, sh-safe command lines and registers the MCP server", async () => {
    const report = await run("install");
    expect(report.ok).toBe(true);
    for (const [path, specs, harness] of [
      [settings, CLAUDE_HOOKS, "claude"],
      [hooksJson, CODEX_HOOKS, "codex"],
    ] as const) {
      const hooks = json(path).hooks;
      expect(Object.keys(hooks)).toEqual(specs.map((spec) => spec.event));
      for (const spec of specs) {
        expect(hooks[spec.event]).toEqual([{ hooks: [{ type: "command", command: expect.any(String), timeout: spec.timeout }] }]);
        const command = hooks[spec.event][0].hooks[0].command as string;
        expect(parseOurCommand(command)).toEqual({ node: process.execPath, hook: join(root, "bin", "tongs-agents-hook.cjs"), alias: spec.alias, agent: harness });
        // The real shell runs it: the stand-in hook records the argument vector it received.
        const record = join(sandbox.root, `record-${harness}-${spec.alias}`);
        execFileSync("/bin/sh", ["-c", command], { env: { ...world.env, HOOK_RECORD: record } });
        expect(JSON.parse(readText(record))).toEqual([spec.alias, "--agent", harness]);
      }
    }
    expect(json(claudeJson).mcpServers["tongs-agents"]).toEqual({ type: "stdio", command: process.execPath, args: [join(root, "bin", "tongs-agents.js"), "mcp"], env: {} });
    expect(JSON.stringify(json(settings))).not.toContain("mcpServers");
    expect(parseTomlDocument(readText(configToml))).toMatchObject({ ok: true, data: { mcp_servers: { "tongs-agents": { command: process.execPath, args: [join(root, "bin", "tongs-agents.js"), "mcp"] } } } });
    const codex = report.harnesses.find((harness) => harness.harness === "codex");
    expect(codex?.todo.join("\n")).toMatch(/Codex skips hooks it has not reviewed \(8 of ours\).*--trust-codex-hooks/);
  });

  it("is idempotent: a second run plans nothing and leaves every file byte for byte", async () => {
    put(settings, USER_SETTINGS);
    put(configToml, USER_CONFIG);
    await run("install");
    const files = [settings, claudeJson, hooksJson, configToml];
    const first = snapshot(files);
    const mtimes = files.map((path) => statSync(path).mtimeMs);
    const again = await run("install");
    expect(again.harnesses.map((harness) => harness.steps.length)).toEqual([0, 0]);
    expect(again.harnesses.every((harness) => !harness.changed)).toBe(true);
    expect(snapshot(files)).toEqual(first);
    expect(files.map((path) => statSync(path).mtimeMs)).toEqual(mtimes);
  });

  it("keeps the user's settings, key order, indentation and other hooks, adding after them", async () => {
    put(settings, USER_SETTINGS);
    put(hooksJson, USER_CODEX_HOOKS);
    await run("install");
    const text = readText(settings);
    expect(text.startsWith('{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},\n  "hooks": {\n    "Stop": [\n      {"matcher": "", "hooks": [{"type": "command", "command": "notify-send \'Claude is done\'"}]},\n      {\n')).toBe(true);
    expect(text.endsWith('  },\n  "2": "an integer-like key that JSON.stringify would move"\n}\n')).toBe(true);
    expect(commands(settings, "Stop")[0]).toBe("notify-send 'Claude is done'");
    expect(commands(settings, "PreCompact")).toEqual(["/home/me/bin/backup"]);
    expect(commands(hooksJson, "Stop")[0]).toBe("say done");
    expect(commands(hooksJson, "Stop")).toHaveLength(2);
  });

  it("keeps config.toml's comments and tables, adding its MCP table after the user's MCP servers", async () => {
    put(configToml, USER_CONFIG);
    await run("install", { harnesses: ["codex"] });
    const text = readText(configToml);
    const ours = `[mcp_servers.tongs-agents]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(join(root, "bin", "tongs-agents.js"))}, "mcp"]\n`;
    expect(text).toBe(USER_CONFIG.replace("# projects\n", `${ours}\n# projects\n`));
    await run("uninstall", { harnesses: ["codex"] });
    expect(readText(configToml)).toBe(USER_CONFIG);
  });

  it("rewrites its entries in place when the installation moved (new package path, new Node path)", async () => {
    put(settings, USER_SETTINGS);
    put(configToml, USER_CONFIG);
    await run("install", { trust: true });
    const movedRoot = makePackageRoot(join(sandbox.root, "moved", "tongs-agents"));
    const nodeDir = makeBinDir(join(sandbox.root, "other node", "bin"));
    const moved = makeWorld(sandbox, { packageRoot: movedRoot, nodePath: join(nodeDir, "node") });
    const before = readText(settings);
    const report = await run("install", { in: moved, trust: true });
    expect(report.ok).toBe(true);
    expect(report.harnesses[0]?.steps[0]?.why).toContain("update Stop -> stop (new paths)");
    const after = readText(settings);
    // Same lines, same places: only the command strings changed.
    expect(after.split("\n").length).toBe(before.split("\n").length);
    expect(after.replaceAll(JSON.stringify(join(nodeDir, "node")).slice(1, -1), "N").replaceAll("/moved/tongs-agents/", "/R/")).not.toContain(root);
    for (const spec of CLAUDE_HOOKS) {
      const mine = commands(settings, spec.event).filter((command) => command.includes("tongs-agents-hook"));
      expect(mine).toHaveLength(1);
      expect(parseOurCommand(mine[0] as string)).toMatchObject({ node: join(nodeDir, "node"), hook: join(movedRoot, "bin", "tongs-agents-hook.cjs") });
    }
    expect(json(claudeJson).mcpServers["tongs-agents"].args[0]).toBe(join(movedRoot, "bin", "tongs-agents.js"));
    const config = parseTomlDocument(readText(configToml));
    expect(config.ok && (config.data.mcp_servers as Record<string, { command: string }>)["tongs-agents"]?.command).toBe(join(nodeDir, "node"));
    // Trust follows the new definitions at the same keys; the user's own trust record stays.
    const state = (config.ok ? (config.data.hooks as { state: Record<string, { trusted_hash: string }> }).state : {}) as Record<string, { trusted_hash: string }>;
    const hooksData = json(hooksJson).hooks;
    for (const spec of CODEX_HOOKS) {
      const command = hooksData[spec.event][0].hooks[0].command;
      expect(state[codexTrustKey(hooksJson, spec.event, 0, 0)]?.trusted_hash).toBe(codexTrustHash({ event: spec.event, command, timeout: spec.timeout }));
    }
    expect(state["/elsewhere/hooks.json:stop:0:0"]).toEqual({ trusted_hash: "sha256:0000" });
    expect(Object.keys(state)).toHaveLength(CODEX_HOOKS.length + 1);
    expect((await run("install", { in: moved, trust: true })).harnesses.every((harness) => harness.steps.length === 0)).toBe(true);
  });

  it("reports an entry that looks like ours but was edited, and neither clobbers nor duplicates it", async () => {
    await run("install", { harnesses: ["claude"] });
    const edited = setJsonValue(readText(settings), ["hooks", "Stop", 0, "hooks", 0, "timeout"], 30, { indent: "  ", eol: "\n" });
    expect(edited).not.toBe(readText(settings));
    put(settings, edited);
    const report = await run("install", { harnesses: ["claude"] });
    expect(report.ok).toBe(false);
    expect(report.harnesses[0]?.findings).toContainEqual({ severity: "conflict", message: expect.stringMatching(/hooks\.Stop\[0\] runs tongs-agents-hook but its timeout is 30, not 5; left as it is/) });
    expect(report.harnesses[0]?.steps).toEqual([]);
    expect(readText(settings)).toBe(edited);
    const removal = await run("uninstall", { harnesses: ["claude"] });
    expect(removal.ok).toBe(false);
    expect(Object.keys(json(settings).hooks)).toEqual(["Stop"]);
    expect(json(settings).hooks.Stop[0].hooks[0].timeout).toBe(30);
  });

  it("also treats wrapped commands, extra keys and foreign events as edited by the user", async () => {
    const hook = shellQuote(join(root, "bin", "tongs-agents-hook.cjs"));
    put(
      settings,
      JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: "command", command: `TONGS_AGENTS_DEBUG=1 node ${hook} stop --agent claude`, timeout: 5 }] }],
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `/usr/bin/node ${hook} tool-use --agent claude`, timeout: 5 }] }],
          SubagentStop: [{ hooks: [{ type: "command", command: `/usr/bin/node ${hook} stop --agent claude`, timeout: 5 }] }],
        },
      }),
    );
    const report = await run("install", { harnesses: ["claude"] });
    const conflicts = report.harnesses[0]?.findings.filter((finding) => finding.severity === "conflict").map((finding) => finding.message) ?? [];
    expect(conflicts).toHaveLength(3);
    expect(conflicts.join("\n")).toMatch(/Stop\[0\].*command line is not the one/);
    expect(conflicts.join("\n")).toMatch(/PreToolUse\[0\].*group has other keys/);
    expect(conflicts.join("\n")).toMatch(/SubagentStop\[0\].*not an event the installer uses/);
    expect(commands(settings, "Stop")).toHaveLength(1);
    expect(commands(settings, "PreToolUse")).toHaveLength(1);
    expect(commands(settings, "SessionStart")).toHaveLength(1);
  });

  it("leaves a file it cannot parse untouched, says why, and still does the rest", async () => {
    const broken = '{\n  "hooks": {},\n}\n';
    put(settings, broken);
    put(configToml, "model = \n");
    const report = await run("install");
    expect(report.ok).toBe(false);
    expect(readText(settings)).toBe(broken);
    expect(readText(configToml)).toBe("model = \n");
    const [claude, codex] = report.harnesses;
    expect(claude?.findings[0]).toEqual({ severity: "error", message: expect.stringMatching(/settings\.json is not valid JSON .*left untouched/) });
    expect(codex?.findings[0]).toEqual({ severity: "error", message: expect.stringMatching(/config\.toml is not valid TOML .*left untouched/) });
    expect(json(claudeJson).mcpServers["tongs-agents"]).toBeDefined();
    expect(Object.keys(json(hooksJson).hooks)).toHaveLength(CODEX_HOOKS.length);
    put(settings, '{"hooks": []}');
    expect((await run("install", { harnesses: ["claude"] })).harnesses[0]?.findings[0]?.message).toMatch(/"hooks" is not an object; left untouched/);
  });

  it("writes through a symlinked settings file, keeping the link and the file's mode", async () => {
    const real = join(sandbox.root, "dotfiles", "claude-settings.json");
    put(real, USER_SETTINGS);
    execFileSync("chmod", ["640", real]);
    mkdirSync(dirname(settings), { recursive: true });
    symlinkSync(real, settings);
    await run("install", { harnesses: ["claude"] });
    expect(commands(real, "SessionStart")).toHaveLength(1);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(readText(settings)).toBe(readText(real));
  });
});

describe("uninstall", () => {
  it("restores the user's files byte for byte and removes only what is ours", async () => {
    put(settings, USER_SETTINGS);
    put(hooksJson, USER_CODEX_HOOKS);
    put(configToml, USER_CONFIG);
    put(claudeJson, '{\n  "numStartups": 3,\n  "mcpServers": {\n    "mine": {"command": "x"}\n  }\n}\n');
    const original = snapshot([settings, hooksJson, configToml, claudeJson]);
    await run("install", { trust: true });
    const removal = await run("uninstall");
    expect(removal.ok).toBe(true);
    expect(snapshot([settings, hooksJson, configToml, claudeJson])).toEqual(original);
    expect((await run("uninstall")).harnesses.every((harness) => harness.steps.length === 0)).toBe(true);
  });

  it("removes containers it emptied but keeps the files (documented in docs/install.md)", async () => {
    await run("install");
    await run("uninstall");
    expect(readText(settings)).toBe("{}\n");
    expect(readText(hooksJson)).toBe("{}\n");
    expect(readText(claudeJson)).toBe("{}\n");
    expect(readText(configToml)).toBe("");
  });

  it("finishes a partial cleanup: entries of ours left in some events and not others are removed, the rest kept", async () => {
    await run("install", { harnesses: ["claude"] });
    const data = json(settings);
    for (const event of ["SessionStart", "Stop", "Notification"]) delete data.hooks[event];
    data.hooks.Stop = [{ hooks: [{ type: "command", command: "mine" }] }];
    put(settings, JSON.stringify(data, null, 2));
    await run("uninstall", { harnesses: ["claude"] });
    expect(json(settings)).toEqual({ hooks: { Stop: [{ hooks: [{ type: "command", command: "mine" }] }] } });
  });
});

describe("legacy claude-fleet-monitor 0.9.x", () => {
  it("removes its hooks and fleet MCP servers on install, and nothing that merely shares the name", async () => {
    // What claude-fleet-monitor's installer wrote (cli.py `_install_hooks`, `cmd_install`), plus a user hook that
    // shares a group with one of its handlers and a `fleet` server of someone else in Codex.
    put(
      settings,
      `${JSON.stringify(
        {
          hooks: {
            SessionStart: [{ hooks: [{ type: "command", command: "/home/me/.local/bin/claude-fleet-hook session-start --agent claude", timeout: 5 }] }],
            Stop: [{ hooks: [{ type: "command", command: "claude-fleet-hook stop --agent claude", timeout: 5 }, { type: "command", command: "notify-send done" }] }],
          },
          mcpServers: { fleet: { command: "/usr/bin/python3", args: ["-m", "claude_fleet_monitor.mcp_server"], env: {} } },
        },
        null,
        2,
      )}\n`,
    );
    put(hooksJson, JSON.stringify({ hooks: { SessionStart: [{ matcher: "startup|resume|clear", hooks: [{ type: "command", command: "claude-fleet-hook session-start --agent codex", timeout: 5 }] }] } }));
    put(configToml, `[mcp_servers.fleet]\ncommand = "/usr/bin/python3"\nargs = ["-m", "claude_fleet_monitor.mcp_server"]\n\n[mcp_servers.other]\ncommand = "fleet"\n`);
    const report = await run("install");
    expect(report.ok).toBe(true);
    const why = report.harnesses.flatMap((harness) => harness.steps.flatMap((step) => step.why));
    expect(why.filter((line) => line.includes("claude-fleet-monitor"))).toHaveLength(5);
    for (const path of [settings, hooksJson]) expect(readText(path)).not.toContain("claude-fleet-hook");
    expect(json(settings).mcpServers).toBeUndefined();
    expect(commands(settings, "Stop")[0]).toBe("notify-send done");
    expect(readText(configToml)).not.toContain("claude_fleet_monitor");
    expect(readText(configToml)).toContain('[mcp_servers.other]\ncommand = "fleet"\n');
    put(configToml, `[mcp_servers.fleet]\ncommand = "my-own-fleet"\n`);
    await run("install", { harnesses: ["codex"] });
    expect(readText(configToml)).toContain('[mcp_servers.fleet]\ncommand = "my-own-fleet"\n');
  });
});

describe("--dry-run", () => {
  it("changes nothing, and what it lists is exactly what install then does", async () => {
    put(settings, USER_SETTINGS);
    put(configToml, USER_CONFIG);
    put(hooksJson, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "claude-fleet-hook stop --agent codex" }] }] } }, null, 4));
    const files = [settings, claudeJson, hooksJson, configToml];
    const original = snapshot(files);
    const dry = await run("install", { dryRun: true, trust: true });
    expect(snapshot(files)).toEqual(original);
    expect(dry.dry_run).toBe(true);
    const planned = dry.harnesses.flatMap((harness) => harness.steps);
    expect(planned.map((step) => [step.path, step.change, step.status])).toEqual([
      [settings, "modify", "planned"],
      [claudeJson, "create", "planned"],
      [hooksJson, "modify", "planned"],
      [configToml, "modify", "planned"],
    ]);
    const done = await run("install", { trust: true });
    for (const step of planned) {
      const before = original[step.path as string];
      expect(diffLines(before ? before.toString("utf8") : null, readText(step.path as string))).toEqual(step.diff);
    }
    expect(done.harnesses.flatMap((harness) => harness.steps).map((step) => [step.path, step.diff])).toEqual(planned.map((step) => [step.path, step.diff]));
    const dryRemoval = await run("uninstall", { dryRun: true });
    const installed = snapshot(files);
    await run("uninstall");
    for (const step of dryRemoval.harnesses.flatMap((harness) => harness.steps)) {
      expect(diffLines((installed[step.path as string] as Buffer).toString("utf8"), readText(step.path as string))).toEqual(step.diff);
    }
  });
});
