// Copilot CLI as the live tests run it: offline against the synthetic provider (COPILOT_PROVIDER_BASE_URL), with the
// hooks `tongs-agents install --agent copilot` writes, in a project folder it already trusts (no folder-trust dialog).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT } from "../processes.ts";
import type { Sandbox } from "../sandbox.ts";
import { harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";

export async function copilotWorld(sandbox: Sandbox, providerUrl: string) {
  const world = liveWorld(sandbox, ROOT, [harnessBinDir("copilot")], {
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: `${providerUrl}/v1`,
    COPILOT_PROVIDER_API_KEY: "not-a-key",
    COPILOT_MODEL: "fake-model",
    COPILOT_AUTO_UPDATE: "false",
  });
  expect((await runInstaller(world, { harnesses: await installersFor(["copilot"]), mode: "install", dryRun: false, options: [] })).ok).toBe(
    true,
  );
  const project = join(sandbox.root, "project");
  mkdirSync(project);
  writeFileSync(join(world.env.COPILOT_HOME as string, "config.json"), JSON.stringify({ trustedFolders: [project] }));
  return { world, project };
}
