// Live: the real Codex CLI (pinned in harnesses.json) and our installer. Proves the trust records the installer writes
// are the ones Codex computes (hooks/list over `codex app-server`), and that `codex exec` then runs our hooks.
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CODEX_HOOKS } from "../../src/harnesses/codex/install.ts";
import { codexTrustHash, codexTrustKey } from "../../src/harnesses/codex/trust.ts";
import { runInstaller } from "../../src/install/installer.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import { ROOT } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { codexHooksList } from "./codex-app-server.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { listAll, liveWorld } from "./live-world.ts";
import { installersFor } from "../../src/harnesses/installers.ts";

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let world: InstallContext;
let config: string;
let userConfig: string;
let project: string;

beforeEach(async () => {
  sandbox = makeSandbox();
  provider = await startProvider({ port: 0 });
  world = liveWorld(sandbox, ROOT, [harnessBinDir("codex")], { FAKE_OPENAI_API_KEY: "not-a-key" });
  config = join(sandbox.env.CODEX_HOME as string, "config.toml");
  project = join(sandbox.root, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(sandbox.env.CODEX_HOME as string, { recursive: true });
  userConfig = `# my Codex settings\nmodel = "fake-model"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false # no network here\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${provider.url}/v1"\nenv_key = "FAKE_OPENAI_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n[analytics]\nenabled = false\n`;
  writeFileSync(config, userConfig);
});
afterEach(async () => {
  await provider.stop();
  sandbox.cleanup();
});

const install = async (trust: boolean) =>
  runInstaller(world, {
    harnesses: await installersFor(["codex"]),
    mode: "install",
    dryRun: false,
    options: trust ? ["trust-codex-hooks"] : [],
  });
const ours = async () => (await codexHooksList(world.env, project)).filter((hook) => hook.command?.includes("tongs-agents-hook"));
const codexExec = () =>
  execa("codex", ["exec", "--skip-git-repo-check", "say hello"], {
    env: world.env,
    extendEnv: false,
    cwd: project,
    input: "",
    timeout: 90_000,
    reject: false,
  });

describe(`Codex ${HARNESS_PACKAGES.codex.version} (live)`, { timeout: 180_000 }, () => {
  it("--trust-codex-hooks writes the keys and hashes Codex computes: hooks/list reports every hook of ours trusted", async () => {
    // A hook of the user's comes first in Stop: ours is group 1 there, and the key must say so.
    const hooksJson = join(sandbox.env.CODEX_HOME as string, "hooks.json");
    writeFileSync(
      hooksJson,
      `${JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true", timeout: 2 }] }] } }, null, 2)}\n`,
    );
    const report = await install(true);
    expect(report.ok).toBe(true);
    const listed = await ours();
    const data = JSON.parse(readFileSync(hooksJson, "utf8")).hooks;
    const group = (event: string) => (event === "Stop" ? 1 : 0);
    // Codex lists hooks in its own event order: compare by key.
    const byKey = (rows: [string, ...unknown[]][]) => rows.sort((a, b) => a[0].localeCompare(b[0]));
    expect(byKey(listed.map((hook) => [hook.key, hook.trustStatus, hook.currentHash, hook.timeoutSec]))).toEqual(
      byKey(
        CODEX_HOOKS.map((spec) => [
          codexTrustKey(hooksJson, spec.event, group(spec.event), 0),
          "trusted",
          codexTrustHash({ event: spec.event, command: data[spec.event][group(spec.event)].hooks[0].command, timeout: spec.timeout }),
          spec.timeout,
        ]),
      ),
    );
    expect((await codexHooksList(world.env, project)).find((hook) => hook.command === "true")?.trustStatus).toBe("untrusted");
    expect(readFileSync(config, "utf8").startsWith(userConfig)).toBe(true);
    const servers = await execa("codex", ["mcp", "list", "--json"], {
      env: world.env,
      extendEnv: false,
      cwd: project,
      input: "",
      reject: false,
    });
    expect(servers.exitCode, servers.stderr).toBe(0);
    expect(JSON.parse(servers.stdout)).toContainEqual(expect.objectContaining({ name: "tongs-agents", enabled: true }));
  });

  it("keys trust by the resolved path when CODEX_HOME is a symlink, as Codex does", async () => {
    const real = join(sandbox.root, "dotfiles", "codex");
    mkdirSync(join(sandbox.root, "dotfiles"), { recursive: true });
    renameSync(sandbox.env.CODEX_HOME as string, real);
    symlinkSync(real, sandbox.env.CODEX_HOME as string);
    await install(true);
    const listed = await ours();
    expect(listed).toHaveLength(CODEX_HOOKS.length);
    expect(listed.every((hook) => hook.trustStatus === "trusted" && hook.key.startsWith(`${join(real, "hooks.json")}:`))).toBe(true);
  });

  it("codex exec runs the trusted hooks: a session record appears", async () => {
    await install(true);
    const run = await codexExec();
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("hook: SessionStart Completed");
    expect(provider.requests).toContainEqual(expect.objectContaining({ method: "POST", path: "/v1/responses", decision: "text" }));
    const sessions = (await listAll(world.env)).filter((session) => session.harness === "codex");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.identity).toBe("process");
    expect(sessions[0]?.session_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("without trust, Codex lists our hooks as untrusted and codex exec skips them (the installer says so)", async () => {
    const report = await install(false);
    expect(report.harnesses[0]?.todo.join("\n")).toContain(`Codex skips hooks it has not reviewed (${CODEX_HOOKS.length} of ours)`);
    expect((await ours()).map((hook) => hook.trustStatus)).toEqual(CODEX_HOOKS.map(() => "untrusted"));
    const run = await codexExec();
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("hook: SessionStart");
    expect(await listAll(world.env)).toEqual([]);
  });

  it("uninstall removes the hooks and their trust records, leaving config.toml as it was", async () => {
    await install(true);
    const removal = await runInstaller(world, {
      harnesses: await installersFor(["codex"]),
      mode: "uninstall",
      dryRun: false,
      options: [],
    });
    expect(removal.ok).toBe(true);
    expect(await ours()).toEqual([]);
    expect(readFileSync(config, "utf8")).toBe(userConfig);
  });
});
