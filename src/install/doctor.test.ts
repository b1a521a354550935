import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { put, runWith, useInstallFixture } from "../../test/install-fixture.ts";
import { makeBinDir, makeWorld } from "../../test/install-world.ts";
import { runDoctor } from "./doctor.ts";
import { installersFor } from "../harnesses/installers.ts";

const fixture = useInstallFixture();
const run = runWith(fixture);

describe("doctor", () => {
  it("says when the hooks run a Node that is too old or a path that is gone", async () => {
    // A stand-in Node that reports version 20: hooks installed by it would do nothing (the hook needs 22).
    const oldNodeDir = makeBinDir(join(fixture.sandbox.root, "old-node"), { "node-20": "#!/bin/sh\necho v20.11.1\n" });
    await run("install", { in: { ...fixture.world, nodePath: join(oldNodeDir, "node-20") } });
    const report = await runDoctor(fixture.world, await installersFor(["claude", "codex"]));
    expect(report.ok).toBe(false);
    for (const harness of report.harnesses) {
      expect(harness.problems).toContainEqual(expect.stringMatching(/node-20 \(v20\.11\.1\): the hook needs Node 22 or newer/));
      expect(harness.hooks.every((hook) => hook.status === "outdated")).toBe(true);
      expect(harness.todo).toContainEqual(expect.stringContaining("to add or update the hooks"));
    }
    rmSync(join(fixture.root, "bin", "tongs-agents-hook.cjs"));
    const gone = await runDoctor(fixture.world, await installersFor(["claude"]));
    expect(gone.harnesses[0]?.problems).toContainEqual(expect.stringMatching(/tongs-agents-hook\.cjs, which does not exist/));
  });

  it("reports a file it cannot read, claude-fleet-monitor leftovers and Codex's daemon advice", async () => {
    put(fixture.settings, '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "claude-fleet-hook stop --agent claude"}]}]}}');
    put(fixture.configToml, "model = \n");
    const report = await runDoctor(fixture.world, await installersFor(["claude", "codex"]));
    const [claude, codex] = report.harnesses;
    expect(claude?.legacy).toEqual([expect.stringContaining("claude-fleet-monitor hooks")]);
    expect(codex?.problems).toEqual([expect.stringMatching(/config\.toml is not valid TOML/)]);
    expect(codex?.mcp).toBe("unknown");
    expect(codex?.todo).toContainEqual(expect.stringContaining("--no-daemon"));
    put(fixture.configToml, "[features]\ndaemon_auto_start = false\n");
    expect(
      (await runDoctor(makeWorld(fixture.sandbox, { packageRoot: fixture.root }), await installersFor(["codex"]))).harnesses[0]?.todo.join(
        "\n",
      ),
    ).not.toContain("--no-daemon");
  });
});
