// The settings.json hook installer shared by Gemini CLI and Qwen Code, against real files in a sandboxed HOME (no
// harness CLI on PATH; the live suites in e2e/ run the real CLIs with what this writes).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commands, json, put, runWith, snapshot, useInstallFixture } from "../../test/install-fixture.ts";
import { readText } from "../../test/install-world.ts";
import { GEMINI_HOOKS } from "../harnesses/gemini/installer.ts";
import { QWEN_HOOKS } from "../harnesses/qwen/installer.ts";
import { installersFor } from "../harnesses/installers.ts";
import { runDoctor } from "./doctor.ts";
import { parseOurCommand } from "./hook-entries.ts";
import { parseJsonDocument } from "./json-text.ts";

const fixture = useInstallFixture();
const run = runWith(fixture);

const USER_SETTINGS = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {
    "AfterAgent": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done", "timeout": 60000}]}]
  }
}
`;

const cases = [
  // GEMINI_CLI_HOME stands for HOME: the settings are in <it>/.gemini.
  { id: "gemini", specs: GEMINI_HOOKS, path: () => join(fixture.sandbox.env.GEMINI_CLI_HOME as string, ".gemini", "settings.json") },
  { id: "qwen", specs: QWEN_HOOKS, path: () => join(fixture.sandbox.env.QWEN_HOME as string, "settings.json") },
] as const;

describe.each(cases)("$id settings.json hooks", ({ id, specs, path }) => {
  it("installs one hook per event, with the harness's timeout unit, and runs each through bash as the harness does", async () => {
    const report = await run("install", { harnesses: [id] });
    expect(report.ok).toBe(true);
    const hooks = json(path()).hooks;
    expect(Object.keys(hooks)).toEqual(specs.map((spec) => spec.event));
    for (const spec of specs) {
      expect(hooks[spec.event]).toEqual([{ hooks: [{ type: "command", command: expect.any(String), timeout: spec.timeout }] }]);
      const command = hooks[spec.event][0].hooks[0].command as string;
      // The shim by default on Linux (the world names no hook mode), as for Claude Code and Codex.
      expect(parseOurCommand(command)).toMatchObject({ alias: spec.alias, agent: id, mode: "shim" });
      const record = join(fixture.sandbox.root, `record-${spec.alias}`);
      execFileSync("bash", ["-c", command], { env: { ...fixture.sandbox.env, HOOK_RECORD: record }, input: "{}" });
      expect(readText(record).trim()).toBe(JSON.stringify([spec.alias, "--agent", id]));
    }
    // Gemini counts milliseconds, Qwen seconds: 5 s either way.
    expect(specs.every((spec) => spec.timeout === (id === "gemini" ? 5000 : 5))).toBe(true);
  });

  it("keeps the user's file around ours, is idempotent, and uninstalls byte for byte", async () => {
    put(path(), USER_SETTINGS);
    const before = snapshot([path()]);
    await run("install", { harnesses: [id] });
    const installed = readText(path());
    expect(installed).toContain("tongs-agents-hook");
    expect(installed).toContain("notify-send done");
    const again = await run("install", { harnesses: [id] });
    expect(again.harnesses[0]?.steps ?? []).toEqual([]);
    expect(readText(path())).toBe(installed);
    await run("uninstall", { harnesses: [id] });
    expect(snapshot([path()])).toEqual(before);
  });

  it("edits a settings.json with comments (both read comments) keeping them, doctor reads it, and uninstalls byte for byte", async () => {
    const commented = USER_SETTINGS.replace("{\n", "{\n  // a comment of the user's\n").replace(
      '"gemini-api-key"}},',
      '"gemini-api-key"}}, /* keep */',
    );
    put(path(), commented);
    const report = await run("install", { harnesses: [id] });
    expect(report.ok).toBe(true);
    const installed = readText(path());
    expect(installed).toContain("// a comment of the user's");
    expect(installed).toContain("/* keep */");
    const data = parseJsonDocument(installed, "comments");
    expect(data.ok && Object.keys(data.data.hooks as object)).toEqual([...new Set(["AfterAgent", ...specs.map((spec) => spec.event)])]);
    const [installer] = await installersFor([id]);
    const doctor = (await runDoctor(fixture.world, [installer!])).harnesses[0];
    expect(doctor?.hooks.map((hook) => hook.status)).toEqual(specs.map(() => "current"));
    expect(doctor?.mcp).toBe("current");
    await run("uninstall", { harnesses: [id] });
    expect(readText(path())).toBe(commented);
  });

  it("leaves a settings.json neither harness can read (a trailing comma) untouched and says why", async () => {
    const broken = USER_SETTINGS.replace('"gemini-api-key"}},', '"gemini-api-key"},},');
    put(path(), broken);
    const report = await run("install", { harnesses: [id] });
    expect(report.ok).toBe(false);
    expect(report.harnesses[0]?.findings[0]?.message).toMatch(/is not valid JSON \(comments allowed\).*left untouched/);
    expect(readText(path())).toBe(broken);
  });

  it("a dry run writes nothing; a moved installation is rewritten in place", async () => {
    const dry = await run("install", { harnesses: [id], dryRun: true });
    expect(dry.harnesses[0]?.steps.length).toBe(1);
    expect(snapshot([path()])).toEqual({ [path()]: null });
    await run("install", { harnesses: [id] });
    const moved = { ...fixture.world, nodePath: "/opt/node22/bin/node" };
    await run("install", { harnesses: [id], in: moved });
    for (const spec of specs)
      expect(parseOurCommand(json(path()).hooks[spec.event][0].hooks[0].command)?.node).toBe("/opt/node22/bin/node");
    expect(Object.keys(json(path()).hooks)).toEqual(specs.map((spec) => spec.event));
  });

  it("switches between the shim and the synchronous hook in place (install --hook), and doctor accepts both", async () => {
    put(path(), USER_SETTINGS);
    const before = snapshot([path()]);
    await run("install", { harnesses: [id], in: { ...fixture.world, hookMode: "shim" } });
    const shim = readText(path());
    const report = await run("install", { harnesses: [id], in: { ...fixture.world, hookMode: "sync" } });
    expect(report.harnesses[0]?.steps.length).toBe(1);
    for (const spec of specs) {
      const ours = commands(path(), spec.event).filter((command) => command.includes("tongs-agents-hook"));
      expect(ours.map((command) => parseOurCommand(command)?.mode)).toEqual(["sync"]);
    }
    expect(readText(path())).toContain("notify-send done");
    const [installer] = await installersFor([id]);
    const doctor = await runDoctor(fixture.world, [installer!]);
    expect(doctor.harnesses[0]?.hooks.map((hook) => hook.status)).toEqual(specs.map(() => "current"));
    await run("install", { harnesses: [id], in: { ...fixture.world, hookMode: "shim" } });
    // The same data (a replaced entry may be laid out on more lines than the appended one was).
    expect(json(path())).toEqual(JSON.parse(shim));
    await run("uninstall", { harnesses: [id] });
    expect(snapshot([path()])).toEqual(before);
  });

  it("registers our MCP server beside the user's, as `mcp add -s user` writes it; uninstall removes exactly it", async () => {
    const withServers = USER_SETTINGS.replace("{\n", '{\n  "mcpServers": {"other": {"command": "other-mcp", "args": []}},\n');
    put(path(), withServers);
    const dry = await run("install", { harnesses: [id], dryRun: true });
    expect(dry.harnesses[0]?.steps[0]?.diff?.join("\n")).toContain('"tongs-agents": {');
    await run("install", { harnesses: [id] });
    const cli = join(fixture.root, "bin", "tongs-agents.js");
    expect(json(path()).mcpServers).toEqual({
      other: { command: "other-mcp", args: [] },
      "tongs-agents": { command: process.execPath, args: [cli, "mcp"] },
    });
    const [installer] = await installersFor([id]);
    expect((await runDoctor(fixture.world, [installer!])).harnesses[0]?.mcp).toBe("current");
    await run("uninstall", { harnesses: [id] });
    expect(readText(path())).toBe(withServers);
  });

  it("MCP: a moved installation is rewritten in place; an entry of someone else's under our name is left; a file we created goes", async () => {
    await run("install", { harnesses: [id] });
    const [installer] = await installersFor([id]);
    const moved = { ...fixture.world, nodePath: "/opt/node22/bin/node" };
    expect((await runDoctor(moved, [installer!])).harnesses[0]?.mcp).toBe("outdated");
    await run("install", { harnesses: [id], in: moved });
    expect(json(path()).mcpServers["tongs-agents"].command).toBe("/opt/node22/bin/node");
    expect((await runDoctor(moved, [installer!])).harnesses[0]?.mcp).toBe("current");
    await run("uninstall", { harnesses: [id], in: moved });
    expect(snapshot([path()])).toEqual({ [path()]: null });

    const theirs = '{"mcpServers": {"tongs-agents": {"command": "npx", "args": ["tongs-agents", "mcp"]}}}\n';
    put(path(), theirs);
    const install = await run("install", { harnesses: [id] });
    expect(install.ok).toBe(false);
    expect(install.harnesses[0]?.findings.map((finding) => finding.severity)).toContain("conflict");
    expect(json(path()).mcpServers).toEqual(JSON.parse(theirs).mcpServers);
    expect((await runDoctor(fixture.world, [installer!])).harnesses[0]?.mcp).toBe("foreign");
    await run("uninstall", { harnesses: [id] });
    expect(json(path()).mcpServers).toEqual(JSON.parse(theirs).mcpServers);
  });

  it("doctor reports each hook and the missing CLI", async () => {
    const [installer] = await installersFor([id]);
    const missing = await runDoctor(fixture.world, [installer!]);
    expect(missing.harnesses[0]?.hooks.every((hook) => hook.status === "missing")).toBe(true);
    expect(missing.harnesses[0]?.todo.join("\n")).toContain(`tongs-agents install --agent ${id}`);
    await run("install", { harnesses: [id] });
    const current = await runDoctor(fixture.world, [installer!]);
    expect(current.harnesses[0]?.hooks.map((hook) => hook.status)).toEqual(specs.map(() => "current"));
    expect(current.harnesses[0]?.binary).toBeNull();
    expect(current.harnesses[0]?.todo).toEqual([expect.stringContaining(`put ${id} on PATH`)]);
  });
});
