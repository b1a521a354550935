// Uninstall, claude-fleet-monitor leftovers and --dry-run, against real files in a sandboxed HOME.
import { describe, expect, it } from "vitest";
import { commands, json, put, runWith, snapshot, useInstallFixture, USER_CODEX_HOOKS, USER_CONFIG, USER_SETTINGS } from "../../test/install-fixture.ts";
import { readText } from "../../test/install-world.ts";
import { diffLines } from "./diff.ts";

const fixture = useInstallFixture();
const run = runWith(fixture);

describe("uninstall", () => {
  it("restores the user's files byte for byte and removes only what is ours", async () => {
    put(fixture.settings, USER_SETTINGS);
    put(fixture.hooksJson, USER_CODEX_HOOKS);
    put(fixture.configToml, USER_CONFIG);
    put(fixture.claudeJson, '{\n  "numStartups": 3,\n  "mcpServers": {\n    "mine": {"command": "x"}\n  }\n}\n');
    const original = snapshot([fixture.settings, fixture.hooksJson, fixture.configToml, fixture.claudeJson]);
    await run("install", { trust: true });
    const removal = await run("uninstall");
    expect(removal.ok).toBe(true);
    expect(snapshot([fixture.settings, fixture.hooksJson, fixture.configToml, fixture.claudeJson])).toEqual(original);
    expect((await run("uninstall")).harnesses.every((harness) => harness.steps.length === 0)).toBe(true);
  });

  it("removes containers it emptied but keeps the files (documented in docs/install.md)", async () => {
    await run("install");
    await run("uninstall");
    expect(readText(fixture.settings)).toBe("{}\n");
    expect(readText(fixture.hooksJson)).toBe("{}\n");
    expect(readText(fixture.claudeJson)).toBe("{}\n");
    expect(readText(fixture.configToml)).toBe("");
  });

  it("finishes a partial cleanup: entries of ours left in some events and not others are removed, the rest kept", async () => {
    await run("install", { harnesses: ["claude"] });
    const data = json(fixture.settings);
    for (const event of ["SessionStart", "Stop", "Notification"]) delete data.hooks[event];
    data.hooks.Stop = [{ hooks: [{ type: "command", command: "mine" }] }];
    put(fixture.settings, JSON.stringify(data, null, 2));
    await run("uninstall", { harnesses: ["claude"] });
    expect(json(fixture.settings)).toEqual({ hooks: { Stop: [{ hooks: [{ type: "command", command: "mine" }] }] } });
  });
});

describe("legacy claude-fleet-monitor 0.9.x", () => {
  it("removes its hooks and fleet MCP servers on install, and nothing that merely shares the name", async () => {
    // What claude-fleet-monitor's installer wrote (cli.py `_install_hooks`, `cmd_install`), plus a user hook that
    // shares a group with one of its handlers and a `fleet` server of someone else in Codex.
    put(
      fixture.settings,
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
    put(fixture.hooksJson, JSON.stringify({ hooks: { SessionStart: [{ matcher: "startup|resume|clear", hooks: [{ type: "command", command: "claude-fleet-hook session-start --agent codex", timeout: 5 }] }] } }));
    put(fixture.configToml, `[mcp_servers.fleet]\ncommand = "/usr/bin/python3"\nargs = ["-m", "claude_fleet_monitor.mcp_server"]\n\n[mcp_servers.other]\ncommand = "fleet"\n`);
    const report = await run("install");
    expect(report.ok).toBe(true);
    const why = report.harnesses.flatMap((harness) => harness.steps.flatMap((step) => step.why));
    expect(why.filter((line) => line.includes("claude-fleet-monitor"))).toHaveLength(5);
    for (const path of [fixture.settings, fixture.hooksJson]) expect(readText(path)).not.toContain("claude-fleet-hook");
    expect(json(fixture.settings).mcpServers).toBeUndefined();
    expect(commands(fixture.settings, "Stop")[0]).toBe("notify-send done");
    expect(readText(fixture.configToml)).not.toContain("claude_fleet_monitor");
    expect(readText(fixture.configToml)).toContain('[mcp_servers.other]\ncommand = "fleet"\n');
    put(fixture.configToml, `[mcp_servers.fleet]\ncommand = "my-own-fleet"\n`);
    await run("install", { harnesses: ["codex"] });
    expect(readText(fixture.configToml)).toContain('[mcp_servers.fleet]\ncommand = "my-own-fleet"\n');
  });
});

describe("--dry-run", () => {
  it("changes nothing, and what it lists is exactly what install then does", async () => {
    put(fixture.settings, USER_SETTINGS);
    put(fixture.configToml, USER_CONFIG);
    put(fixture.hooksJson, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "claude-fleet-hook stop --agent codex" }] }] } }, null, 4));
    const files = [fixture.settings, fixture.claudeJson, fixture.hooksJson, fixture.configToml];
    const original = snapshot(files);
    const dry = await run("install", { dryRun: true, trust: true });
    expect(snapshot(files)).toEqual(original);
    expect(dry.dry_run).toBe(true);
    const planned = dry.harnesses.flatMap((harness) => harness.steps);
    expect(planned.map((step) => [step.path, step.change, step.status])).toEqual([
      [fixture.settings, "modify", "planned"],
      [fixture.claudeJson, "create", "planned"],
      [fixture.hooksJson, "modify", "planned"],
      [fixture.configToml, "modify", "planned"],
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

describe("Codex trust positions", () => {
  it("warns on uninstall when entries of the user's come after ours in an event (Codex re-asks for their review)", async () => {
    await run("install", { harnesses: ["codex"] });
    const data = json(fixture.hooksJson);
    data.hooks.Stop.push({ hooks: [{ type: "command", command: "say later" }] });
    put(fixture.hooksJson, JSON.stringify(data, null, 2));
    const report = await run("uninstall", { harnesses: ["codex"] });
    expect(report.ok).toBe(true);
    expect(report.harnesses[0]?.findings).toContainEqual({ severity: "warning", message: expect.stringMatching(/entries after ours in hooks\.Stop move up/) });
    expect(commands(fixture.hooksJson, "Stop")).toEqual(["say later"]);
  });
});
