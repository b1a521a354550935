// The installer against real files in a sandboxed HOME (Claude Code and Codex; Pi has its own file). No harness CLI is
// on PATH here, so Claude's MCP server is written into .claude.json directly; test/live/ runs the real CLIs.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, statSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  commands,
  json,
  put,
  runWith,
  snapshot,
  useInstallFixture,
  USER_CODEX_HOOKS,
  USER_CONFIG,
  USER_SETTINGS,
} from "../../test/install-fixture.ts";
import { makeBinDir, makePackageRoot, makeWorld, readText } from "../../test/install-world.ts";
import { CLAUDE_HOOKS } from "../harnesses/claude/install.ts";
import { CODEX_HOOKS } from "../harnesses/codex/install.ts";
import { codexTrustHash, codexTrustKey } from "../harnesses/codex/trust.ts";
import { shellQuote } from "../core/shell-quote.ts";
import { defaultHookMode } from "./command.ts";
import { parseOurCommand } from "./hook-entries.ts";
import { setJsonValue } from "./json-text.ts";
import { parseTomlDocument } from "./toml-text.ts";

const fixture = useInstallFixture();
const run = runWith(fixture);

describe("install", () => {
  it("installs every hook with absolute, sh-safe command lines and registers the MCP server", async () => {
    const report = await run("install");
    expect(report.ok).toBe(true);
    for (const [path, specs, harness] of [
      [fixture.settings, CLAUDE_HOOKS, "claude"],
      [fixture.hooksJson, CODEX_HOOKS, "codex"],
    ] as const) {
      const hooks = json(path).hooks;
      expect(Object.keys(hooks)).toEqual([...new Set(specs.map((spec) => spec.event))]);
      for (const spec of specs) {
        // One group per entry of ours; an event with two (Claude Code's PermissionRequest: its state event and the held
        // hook) has them in the order of the specs.
        const ofEvent = specs.filter((other) => other.event === spec.event);
        expect(hooks[spec.event]).toHaveLength(ofEvent.length);
        const group = hooks[spec.event][ofEvent.indexOf(spec)];
        expect(group).toEqual({ hooks: [{ type: "command", command: expect.any(String), timeout: spec.timeout }] });
        const command = group.hooks[0].command as string;
        expect(parseOurCommand(command)).toEqual({
          node: process.execPath,
          hook: join(fixture.root, "bin", "tongs-agents-hook.cjs"),
          alias: spec.alias,
          agent: harness,
          // A hook that holds is Node itself, never the shim.
          mode: spec.holds ? "sync" : defaultHookMode(),
        });
        // The real shell runs it: the stand-in hook records the argument vector it received.
        const record = join(fixture.sandbox.root, `record-${harness}-${spec.alias}`);
        execFileSync("/bin/sh", ["-c", command], { env: { ...fixture.world.env, HOOK_RECORD: record } });
        expect(JSON.parse(readText(record))).toEqual([spec.alias, "--agent", harness]);
      }
    }
    expect(json(fixture.claudeJson).mcpServers["tongs-agents"]).toEqual({
      type: "stdio",
      command: process.execPath,
      args: [join(fixture.root, "bin", "tongs-agents.js"), "mcp"],
      env: {},
    });
    expect(JSON.stringify(json(fixture.settings))).not.toContain("mcpServers");
    expect(parseTomlDocument(readText(fixture.configToml))).toMatchObject({
      ok: true,
      data: { mcp_servers: { "tongs-agents": { command: process.execPath, args: [join(fixture.root, "bin", "tongs-agents.js"), "mcp"] } } },
    });
    const codex = report.harnesses.find((harness) => harness.harness === "codex");
    expect(codex?.todo.join("\n")).toMatch(/Codex skips hooks it has not reviewed \(12 of ours\).*--trust-codex-hooks/);
  });

  it("is idempotent: a second run plans nothing and leaves every file byte for byte", async () => {
    put(fixture.settings, USER_SETTINGS);
    put(fixture.configToml, USER_CONFIG);
    await run("install");
    const files = [fixture.settings, fixture.claudeJson, fixture.hooksJson, fixture.configToml];
    const first = snapshot(files);
    const mtimes = files.map((path) => statSync(path).mtimeMs);
    const again = await run("install");
    expect(again.harnesses.map((harness) => harness.steps.length)).toEqual([0, 0]);
    expect(again.harnesses.every((harness) => !harness.changed)).toBe(true);
    expect(snapshot(files)).toEqual(first);
    expect(files.map((path) => statSync(path).mtimeMs)).toEqual(mtimes);
  });

  it("keeps the user's fixture.settings, key order, indentation and other hooks, adding after them", async () => {
    put(fixture.settings, USER_SETTINGS);
    put(fixture.hooksJson, USER_CODEX_HOOKS);
    await run("install");
    const text = readText(fixture.settings);
    expect(
      text.startsWith(
        '{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},\n  "hooks": {\n    "Stop": [\n      {"matcher": "", "hooks": [{"type": "command", "command": "notify-send \'Claude is done\'"}]},\n      {\n',
      ),
    ).toBe(true);
    expect(text.endsWith('  },\n  "2": "an integer-like key that JSON.stringify would move"\n}\n')).toBe(true);
    expect(commands(fixture.settings, "Stop")[0]).toBe("notify-send 'Claude is done'");
    expect(commands(fixture.settings, "ConfigChange")).toEqual(["/home/me/bin/backup"]);
    expect(commands(fixture.hooksJson, "Stop")[0]).toBe("say done");
    expect(commands(fixture.hooksJson, "Stop")).toHaveLength(2);
  });

  it("keeps config.toml's comments and tables, adding its MCP table after the user's MCP servers", async () => {
    put(fixture.configToml, USER_CONFIG);
    await run("install", { harnesses: ["codex"] });
    const text = readText(fixture.configToml);
    const ours = `[mcp_servers.tongs-agents]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(join(fixture.root, "bin", "tongs-agents.js"))}, "mcp"]\n`;
    expect(text).toBe(USER_CONFIG.replace("# projects\n", `${ours}\n# projects\n`));
    await run("uninstall", { harnesses: ["codex"] });
    expect(readText(fixture.configToml)).toBe(USER_CONFIG);
  });

  it("switches every hook between the shim and the synchronous hook in place (install --hook), and back", async () => {
    put(fixture.settings, USER_SETTINGS);
    await run("install", { harnesses: ["claude"], in: { ...fixture.world, hookMode: "shim" } });
    const before = readText(fixture.settings);
    const report = await run("install", { harnesses: ["claude"], in: { ...fixture.world, hookMode: "sync" } });
    expect(report.harnesses[0]?.steps[0]?.why).toContain("update Stop -> stop (hook mode sync)");
    const after = readText(fixture.settings);
    expect(after.split("\n").length).toBe(before.split("\n").length);
    for (const spec of CLAUDE_HOOKS) {
      const mine = commands(fixture.settings, spec.event).filter((command) => command.includes(` ${spec.alias} --agent`));
      expect(mine).toEqual([
        [process.execPath, join(fixture.root, "bin", "tongs-agents-hook.cjs"), spec.alias, "--agent", "claude"].map(shellQuote).join(" "),
      ]);
    }
    // The same mode again changes nothing; back to the shim restores the first text exactly.
    expect((await run("install", { harnesses: ["claude"], in: { ...fixture.world, hookMode: "sync" } })).harnesses[0]?.steps).toEqual([]);
    await run("install", { harnesses: ["claude"], in: { ...fixture.world, hookMode: "shim" } });
    expect(readText(fixture.settings)).toBe(before);
    expect(commands(fixture.settings, "Stop").filter((command) => command.includes("tongs-agents-hook"))[0]).toBe(
      ["/bin/sh", join(fixture.root, "bin", "tongs-agents-hook.sh"), process.execPath, "stop", "--agent", "claude"]
        .map(shellQuote)
        .join(" "),
    );
  });

  it("rewrites its entries in place when the installation moved (new package path, new Node path)", async () => {
    put(fixture.settings, USER_SETTINGS);
    put(fixture.configToml, USER_CONFIG);
    await run("install", { trust: true });
    const movedRoot = makePackageRoot(join(fixture.sandbox.root, "moved", "tongs-agents"));
    const nodeDir = makeBinDir(join(fixture.sandbox.root, "other node", "bin"));
    const moved = makeWorld(fixture.sandbox, { packageRoot: movedRoot, nodePath: join(nodeDir, "node") });
    const before = readText(fixture.settings);
    const report = await run("install", { in: moved, trust: true });
    expect(report.ok).toBe(true);
    expect(report.harnesses[0]?.steps[0]?.why).toContain("update Stop -> stop (new paths)");
    const after = readText(fixture.settings);
    // Same lines, same places: only the command strings changed.
    expect(after.split("\n").length).toBe(before.split("\n").length);
    expect(
      after.replaceAll(JSON.stringify(join(nodeDir, "node")).slice(1, -1), "N").replaceAll("/moved/tongs-agents/", "/R/"),
    ).not.toContain(fixture.root);
    for (const spec of CLAUDE_HOOKS) {
      const mine = commands(fixture.settings, spec.event).filter((command) => command.includes(` ${spec.alias} --agent`));
      expect(mine).toHaveLength(1);
      expect(parseOurCommand(mine[0] as string)).toMatchObject({
        node: join(nodeDir, "node"),
        hook: join(movedRoot, "bin", "tongs-agents-hook.cjs"),
      });
    }
    expect(json(fixture.claudeJson).mcpServers["tongs-agents"].args[0]).toBe(join(movedRoot, "bin", "tongs-agents.js"));
    const config = parseTomlDocument(readText(fixture.configToml));
    expect(config.ok && (config.data.mcp_servers as Record<string, { command: string }>)["tongs-agents"]?.command).toBe(
      join(nodeDir, "node"),
    );
    // Trust follows the new definitions at the same keys; the user's own trust record stays.
    const state = (config.ok ? (config.data.hooks as { state: Record<string, { trusted_hash: string }> }).state : {}) as Record<
      string,
      { trusted_hash: string }
    >;
    const hooksData = json(fixture.hooksJson).hooks;
    for (const spec of CODEX_HOOKS) {
      const command = hooksData[spec.event][0].hooks[0].command;
      expect(state[codexTrustKey(fixture.hooksJson, spec.event, 0, 0)]?.trusted_hash).toBe(
        codexTrustHash({ event: spec.event, command, timeout: spec.timeout }),
      );
    }
    expect(state["/elsewhere/hooks.json:stop:0:0"]).toEqual({ trusted_hash: "sha256:0000" });
    expect(Object.keys(state)).toHaveLength(CODEX_HOOKS.length + 1);
    expect((await run("install", { in: moved, trust: true })).harnesses.every((harness) => harness.steps.length === 0)).toBe(true);
  });

  it("reports an entry that looks like ours but was edited, and neither clobbers nor duplicates it", async () => {
    await run("install", { harnesses: ["claude"] });
    const edited = setJsonValue(readText(fixture.settings), ["hooks", "Stop", 0, "hooks", 0, "timeout"], 30, { indent: "  ", eol: "\n" });
    expect(edited).not.toBe(readText(fixture.settings));
    put(fixture.settings, edited);
    const report = await run("install", { harnesses: ["claude"] });
    expect(report.ok).toBe(false);
    expect(report.harnesses[0]?.findings).toContainEqual({
      severity: "conflict",
      message: expect.stringMatching(/hooks\.Stop\[0\] runs tongs-agents-hook but its timeout is 30, not 5; left as it is/),
    });
    expect(report.harnesses[0]?.steps).toEqual([]);
    expect(readText(fixture.settings)).toBe(edited);
    const removal = await run("uninstall", { harnesses: ["claude"] });
    expect(removal.ok).toBe(false);
    expect(Object.keys(json(fixture.settings).hooks)).toEqual(["Stop"]);
    expect(json(fixture.settings).hooks.Stop[0].hooks[0].timeout).toBe(30);
  });

  it("also treats wrapped commands, extra keys and foreign events as edited by the user", async () => {
    const hook = shellQuote(join(fixture.root, "bin", "tongs-agents-hook.cjs"));
    put(
      fixture.settings,
      JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: "command", command: `TONGS_AGENTS_DEBUG=1 node ${hook} stop --agent claude`, timeout: 5 }] }],
          PreToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: `/usr/bin/node ${hook} tool-use --agent claude`, timeout: 5 }] },
          ],
          TeammateIdle: [{ hooks: [{ type: "command", command: `/usr/bin/node ${hook} stop --agent claude`, timeout: 5 }] }],
        },
      }),
    );
    const report = await run("install", { harnesses: ["claude"] });
    const conflicts =
      report.harnesses[0]?.findings.filter((finding) => finding.severity === "conflict").map((finding) => finding.message) ?? [];
    expect(conflicts).toHaveLength(3);
    expect(conflicts.join("\n")).toMatch(/Stop\[0\].*command line is not the one/);
    expect(conflicts.join("\n")).toMatch(/PreToolUse\[0\].*group has other keys/);
    expect(conflicts.join("\n")).toMatch(/TeammateIdle\[0\].*not an event the installer uses/);
    expect(commands(fixture.settings, "Stop")).toHaveLength(1);
    expect(commands(fixture.settings, "PreToolUse")).toHaveLength(1);
    expect(commands(fixture.settings, "SessionStart")).toHaveLength(1);
  });

  it("leaves a file it cannot parse untouched, says why, and still does the rest", async () => {
    const broken = '{\n  "hooks": {},\n}\n';
    put(fixture.settings, broken);
    put(fixture.configToml, "model = \n");
    const report = await run("install");
    expect(report.ok).toBe(false);
    expect(readText(fixture.settings)).toBe(broken);
    expect(readText(fixture.configToml)).toBe("model = \n");
    const [claude, codex] = report.harnesses;
    expect(claude?.findings[0]).toEqual({
      severity: "error",
      message: expect.stringMatching(/settings\.json is not valid JSON .*left untouched/),
    });
    expect(codex?.findings[0]).toEqual({
      severity: "error",
      message: expect.stringMatching(/config\.toml is not valid TOML .*left untouched/),
    });
    expect(json(fixture.claudeJson).mcpServers["tongs-agents"]).toBeDefined();
    expect(Object.keys(json(fixture.hooksJson).hooks)).toHaveLength(CODEX_HOOKS.length);
    put(fixture.settings, '{"hooks": []}');
    expect((await run("install", { harnesses: ["claude"] })).harnesses[0]?.findings[0]?.message).toMatch(
      /"hooks" is not an object; left untouched/,
    );
  });

  it("writes through a symlinked fixture.settings file, keeping the link and the file's mode", async () => {
    const real = join(fixture.sandbox.root, "dotfiles", "claude-fixture.settings.json");
    put(real, USER_SETTINGS);
    execFileSync("chmod", ["640", real]);
    mkdirSync(dirname(fixture.settings), { recursive: true });
    symlinkSync(real, fixture.settings);
    await run("install", { harnesses: ["claude"] });
    expect(commands(real, "SessionStart")).toHaveLength(1);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(readText(fixture.settings)).toBe(readText(real));
  });

  it("run as root into another user's HOME: every file written belongs to that user, and the report warns (needs root, as CI)", async () => {
    expect(process.getuid?.(), "this test needs root, as CI has").toBe(0);
    put(fixture.settings, USER_SETTINGS);
    chmodSync(fixture.settings, 0o600);
    for (const path of [fixture.sandbox.home, dirname(fixture.settings), fixture.settings]) chownSync(path, 4242, 4343);
    const report = await run("install");
    expect(report.ok).toBe(true);
    for (const path of [fixture.settings, fixture.claudeJson, dirname(fixture.hooksJson), fixture.hooksJson, fixture.configToml])
      expect(statSync(path), path).toMatchObject({ uid: 4242, gid: 4343 });
    expect(statSync(fixture.settings).mode & 0o7777).toBe(0o600);
    for (const harness of report.harnesses)
      expect(harness.findings).toContainEqual({
        severity: "warning",
        message: expect.stringContaining(`${fixture.sandbox.home} belongs to uid 4242, not to uid 0 running this`),
      });
    // Run by its owner, nothing is said.
    chownSync(fixture.sandbox.home, 0, 0);
    expect(
      (await run("uninstall")).harnesses.flatMap((harness) => harness.findings).filter((finding) => finding.severity === "warning"),
    ).toEqual([]);
  });
});
