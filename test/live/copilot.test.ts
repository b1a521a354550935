// Live: the real Copilot CLI (pinned in harnesses.json) runs the hooks our installer writes. `copilot -p` against the
// synthetic provider (offline, no sign-in: COPILOT_OFFLINE and COPILOT_PROVIDER_*, docs/harness-facts.md); what each
// hook did is read from the hook's debug log, the end state from `tongs-agents list`. Each run also waits (bounded) for
// any hook shim's workers to drain before reading, so the test holds whichever hook mode the installer writes.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copilotDoctor, readCopilotJson } from "../../src/harnesses/copilot/doctor.ts";
import { runInstaller } from "../../src/install/installer.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { installersFor } from "../../src/harnesses/installers.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import { ROOT } from "../processes.ts";
import { shellQuote } from "../../src/core/shell-quote.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { listAll, liveWorld, spoolDrained } from "./live-world.ts";

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let world: InstallContext;

// One sandbox for the file: Copilot unpacks ~235 MB into its cache on the first run in a fresh home.
beforeAll(async () => {
  sandbox = makeSandbox();
  provider = await startProvider({ port: 0, slowMs: 50 });
  world = liveWorld(sandbox, ROOT, [harnessBinDir("copilot")], {
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: `${provider.url}/v1`,
    COPILOT_PROVIDER_API_KEY: "not-a-key",
    COPILOT_MODEL: "fake-model",
    COPILOT_AUTO_UPDATE: "false",
    TONGS_AGENTS_DEBUG: "1",
  });
});
afterAll(async () => {
  await provider.stop();
  sandbox.cleanup();
});

const install = async (mode: "install" | "uninstall") =>
  runInstaller(world, { harnesses: await installersFor(["copilot"]), mode, dryRun: false, options: [] });

/** A trusted project dir (no folder-trust dialog), then `copilot -p <prompt>` in it. */
async function copilotPrint(name: string, prompt: string, args: readonly string[] = []) {
  const project = join(sandbox.root, name);
  mkdirSync(project, { recursive: true });
  const home = sandbox.env.COPILOT_HOME as string;
  mkdirSync(home, { recursive: true });
  const configPath = join(home, "config.json");
  // Copilot rewrites config.json with comment lines above the object.
  const config = (readCopilotJson(configPath) ?? {}) as { trustedFolders?: string[] };
  writeFileSync(configPath, JSON.stringify({ ...config, trustedFolders: [...(config.trustedFolders ?? []), project] }));
  const run = await execa("copilot", ["-p", prompt, ...args], {
    env: world.env,
    extendEnv: false,
    cwd: project,
    input: "",
    timeout: 150_000,
    reject: false,
  });
  const session = /copilot --resume=([0-9a-f-]{36})/.exec(run.stdout + run.stderr)?.[1];
  // Through the shim Copilot would wait only for the shell: its events are applied by then, or soon.
  await spoolDrained(sandbox.stateDir);
  return { run, project, session };
}

/** The hook's own account of each event it handled for this session's run, in order. */
function hookLog(): { argv: string[]; outcome: string; action?: string; detail?: string }[] {
  const path = join(sandbox.stateDir, "hook.log");
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
    : [];
}

describe(`Copilot CLI ${HARNESS_PACKAGES.copilot.version} (live)`, { timeout: 300_000 }, () => {
  it("copilot -p runs the installed hooks: every event is written under the real copilot process, and the session ends", async () => {
    expect((await install("install")).ok).toBe(true);
    // The hook shim, the default on Linux: Copilot waits for a POSIX sh; a detached worker applies the event.
    const installed = JSON.parse(readFileSync(join(sandbox.env.COPILOT_HOME as string, "hooks", "tongs-agents.json"), "utf8"));
    expect(installed.hooks.preToolUse[0].bash).toBe(
      `/bin/sh ${shellQuote(join(ROOT, "bin", "tongs-agents-hook.sh"))} ${shellQuote(process.execPath)} tool-use --agent copilot`,
    );
    const before = hookLog().length;
    const { run, session } = await copilotPrint("tool", "please RUNTOOL", ["--allow-all-tools"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(session).toBeDefined();
    const events = hookLog().slice(before);
    // Copilot runs sessionStart and the first userPromptSubmitted at the same time (docs/harness-facts.md): their hooks
    // may finish in either order, and one may leave its event to the other's lock holder (deferred, then applied).
    const [first, second, ...rest] = events.map((entry) => [entry.argv[0], entry.action]);
    expect([first?.[0], second?.[0]].sort()).toEqual(["prompt-submit", "session-start"]);
    for (const action of [first?.[1], second?.[1]]) expect(["written", "deferred"]).toContain(action);
    expect(rest, JSON.stringify(events.slice(2))).toEqual([
      ["tool-use", "written"],
      ["tool-done", "written"],
      ["stop", "written"],
      ["session-end", "written"],
    ]);
    const sessions = (await listAll(world.env)).filter((entry) => entry.session_id === session);
    expect(sessions).toEqual([expect.objectContaining({ harness: "copilot", identity: "process", recorded_status: "ended" })]);
  });

  it("a provider failure: errorOccurred (model_call) is written as an error before the session ends", async () => {
    const before = hookLog().length;
    const { session } = await copilotPrint("fail", "FAILAPI");
    expect(session).toBeDefined();
    const events = hookLog().slice(before);
    expect(events.map((entry) => entry.argv[0])).toContain("error-occurred");
    expect(events.find((entry) => entry.argv[0] === "error-occurred")?.action).toBe("written");
    expect(events.at(-1)?.argv[0]).toBe("session-end");
  });

  it("doctor finds the real binary and our hooks current; uninstall leaves Copilot running no hook of ours", async () => {
    const doctor = await copilotDoctor(world);
    expect(doctor.version).toContain(HARNESS_PACKAGES.copilot.version);
    expect(doctor.hooks.every((hook) => hook.status === "current")).toBe(true);
    expect((await install("uninstall")).ok).toBe(true);
    const before = hookLog().length;
    const { run } = await copilotPrint("after", "say hi");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(hookLog().slice(before)).toEqual([]);
  });
});
