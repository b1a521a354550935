// The settings.json hook installer shared by Gemini CLI and Qwen Code, against real files in a sandboxed HOME (no
// harness CLI on PATH; the live suites in e2e/ run the real CLIs with what this writes).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { json, put, runWith, snapshot, useInstallFixture } from "../../test/install-fixture.ts";
import { readText } from "../../test/install-world.ts";
import { GEMINI_HOOKS } from "../harnesses/gemini/installer.ts";
import { QWEN_HOOKS } from "../harnesses/qwen/installer.ts";
import { installersFor } from "../harnesses/installers.ts";
import { runDoctor } from "./doctor.ts";
import { parseOurCommand } from "./hook-entries.ts";

const fixture = useInstallFixture();
const run = runWith(fixture);

const USER_SETTINGS = `{
  // Gemini and Qwen read JSON with comments
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
  it("installs one hook per event, with the harness's timeout unit, and runs each through the real shell", async () => {
    const report = await run("install", { harnesses: [id] });
    expect(report.ok).toBe(true);
    const hooks = json(path()).hooks;
    expect(Object.keys(hooks)).toEqual(specs.map((spec) => spec.event));
    for (const spec of specs) {
      expect(hooks[spec.event]).toEqual([{ hooks: [{ type: "command", command: expect.any(String), timeout: spec.timeout }] }]);
      const command = hooks[spec.event][0].hooks[0].command as string;
      expect(parseOurCommand(command)).toMatchObject({ alias: spec.alias, agent: id });
      const record = join(fixture.sandbox.root, `record-${spec.alias}`);
      execFileSync("/bin/sh", ["-c", command], { env: { ...fixture.sandbox.env, HOOK_RECORD: record }, input: "{}" });
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
    expect(installed).toContain("// Gemini and Qwen read JSON with comments");
    expect(installed).toContain("notify-send done");
    const again = await run("install", { harnesses: [id] });
    expect(again.harnesses[0]?.steps ?? []).toEqual([]);
    expect(readText(path())).toBe(installed);
    await run("uninstall", { harnesses: [id] });
    expect(snapshot([path()])).toEqual(before);
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

  it("doctor reports each hook and the missing CLI", async () => {
    const [installer] = installersFor([id]);
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
