// Uninstall, claude-fleet-monitor leftovers and --dry-run, against real files in a sandboxed HOME.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
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
import { makeBinDir, makeWorld, readText } from "../../test/install-world.ts";
import { ROOT } from "../../test/processes.ts";
import { CREATED_FILES } from "./created-files.ts";
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

  it("removes the files install created once nothing else is in them (documented in docs/install.md)", async () => {
    const files = [fixture.settings, fixture.claudeJson, fixture.hooksJson, fixture.configToml];
    await run("install");
    expect(files.filter((path) => existsSync(path))).toEqual(files);
    expect(JSON.parse(readText(join(fixture.sandbox.stateDir, CREATED_FILES))).created).toEqual([...files].sort());
    const removal = await run("uninstall");
    expect(removal.ok).toBe(true);
    expect(files.filter((path) => existsSync(path))).toEqual([]);
    expect(removal.harnesses.flatMap((harness) => harness.steps.map((step) => [step.path, step.change]))).toEqual(
      files.map((path) => [path, "delete"]),
    );
    expect(JSON.parse(readText(join(fixture.sandbox.stateDir, CREATED_FILES))).created).toEqual([]);
  });

  it("keeps a file install created when something else is in it now, and every file that was there before, even {}", async () => {
    put(fixture.settings, "{}\n");
    await run("install");
    const data = json(fixture.hooksJson);
    data.model_note = "added by the user after install";
    put(fixture.hooksJson, `${JSON.stringify(data, null, 2)}\n`);
    await run("uninstall");
    expect(readText(fixture.settings)).toBe("{}\n");
    expect(json(fixture.hooksJson)).toEqual({ model_note: "added by the user after install" });
    expect(existsSync(fixture.claudeJson)).toBe(false);
  });

  it("without the record of created files (a purged state dir), keeps every file, emptied containers removed", async () => {
    await run("install");
    rmSync(join(fixture.sandbox.stateDir, CREATED_FILES));
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

describe("uninstall through the harnesses' own commands (mocked: fake claude and pi modelled on 2.1.332 and 1.6.0)", () => {
  const withFakes = () => {
    const bin = makeBinDir(join(fixture.sandbox.root, "fake-bin"), {
      claude: readFileSync(join(ROOT, "test", "fixtures", "fake-claude-mcp.mjs"), "utf8"),
      pi: readFileSync(join(ROOT, "test", "fixtures", "fake-pi.mjs"), "utf8"),
    });
    return makeWorld(fixture.sandbox, { packageRoot: fixture.root, path: [bin] });
  };
  const piSettings = () => join(fixture.sandbox.env.PI_CODING_AGENT_DIR as string, "settings.json");

  it("removes the mcpServers and packages that claude mcp remove and pi remove leave empty, then the files they created", async () => {
    const world = withFakes();
    put(fixture.claudeJson, '{\n  "numStartups": 3\n}');
    expect((await run("install", { harnesses: ["claude", "pi"], in: world })).ok).toBe(true);
    expect(json(fixture.claudeJson).mcpServers["tongs-agents"]).toBeDefined();
    expect(json(piSettings()).packages).toHaveLength(1);
    const removal = await run("uninstall", { harnesses: ["claude", "pi"], in: world });
    expect(removal.ok).toBe(true);
    // .claude.json was there before: it keeps what it had, without the emptied object claude left.
    expect(json(fixture.claudeJson)).toEqual({ numStartups: 3 });
    // Pi's settings.json was created by pi install, settings.json by install: both go.
    expect(existsSync(piSettings())).toBe(false);
    expect(existsSync(fixture.settings)).toBe(false);
  });

  it("keeps mcpServers and packages that hold someone else's entries, and an empty one that was there before", async () => {
    const world = withFakes();
    put(fixture.claudeJson, JSON.stringify({ mcpServers: { mine: { command: "x" } } }));
    put(piSettings(), JSON.stringify({ packages: ["npm:someone-elses@1.0.0"] }));
    await run("install", { harnesses: ["claude", "pi"], in: world });
    await run("uninstall", { harnesses: ["claude", "pi"], in: world });
    expect(json(fixture.claudeJson).mcpServers).toEqual({ mine: { command: "x" } });
    expect(json(piSettings()).packages).toEqual(["npm:someone-elses@1.0.0"]);

    put(fixture.claudeJson, JSON.stringify({ mcpServers: {} }));
    await run("install", { harnesses: ["claude"], in: world });
    const removal = await run("uninstall", { harnesses: ["claude"], in: world });
    expect(removal.harnesses[0]?.steps.map((step) => step.kind)).toEqual(["delete", "run", "drop-empty"]);
    // Ours was the last server, but the user had the object there, empty, before install: it stays, as it was.
    expect(json(fixture.claudeJson)).toEqual({ mcpServers: {} });

    // One install made goes with our server.
    put(fixture.claudeJson, JSON.stringify({ numStartups: 1 }));
    await run("install", { harnesses: ["claude"], in: world });
    await run("uninstall", { harnesses: ["claude"], in: world });
    expect(json(fixture.claudeJson)).toEqual({ numStartups: 1 });
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
            SessionStart: [
              { hooks: [{ type: "command", command: "/home/me/.local/bin/claude-fleet-hook session-start --agent claude", timeout: 5 }] },
            ],
            Stop: [
              {
                hooks: [
                  { type: "command", command: "claude-fleet-hook stop --agent claude", timeout: 5 },
                  { type: "command", command: "notify-send done" },
                ],
              },
            ],
          },
          mcpServers: { fleet: { command: "/usr/bin/python3", args: ["-m", "claude_fleet_monitor.mcp_server"], env: {} } },
        },
        null,
        2,
      )}\n`,
    );
    put(
      fixture.hooksJson,
      JSON.stringify({
        hooks: {
          SessionStart: [
            {
              matcher: "startup|resume|clear",
              hooks: [{ type: "command", command: "claude-fleet-hook session-start --agent codex", timeout: 5 }],
            },
          ],
        },
      }),
    );
    put(
      fixture.configToml,
      `[mcp_servers.fleet]\ncommand = "/usr/bin/python3"\nargs = ["-m", "claude_fleet_monitor.mcp_server"]\n\n[mcp_servers.other]\ncommand = "fleet"\n`,
    );
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
    put(
      fixture.hooksJson,
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "claude-fleet-hook stop --agent codex" }] }] } }, null, 4),
    );
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
    expect(done.harnesses.flatMap((harness) => harness.steps).map((step) => [step.path, step.diff])).toEqual(
      planned.map((step) => [step.path, step.diff]),
    );
    const dryRemoval = await run("uninstall", { dryRun: true });
    const installed = snapshot(files);
    await run("uninstall");
    for (const step of dryRemoval.harnesses.flatMap((harness) => harness.steps)) {
      const path = step.path as string;
      expect(diffLines((installed[path] as Buffer).toString("utf8"), existsSync(path) ? readText(path) : null)).toEqual(step.diff);
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
    expect(report.harnesses[0]?.findings).toContainEqual({
      severity: "warning",
      message: expect.stringMatching(/entries after ours in hooks\.Stop move up/),
    });
    expect(commands(fixture.hooksJson, "Stop")).toEqual(["say later"]);
  });
});
