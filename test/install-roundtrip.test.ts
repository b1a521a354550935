// The clean way out: `install --agent all`, then `uninstall`, on a home where every harness already has settings of the
// user's. The whole home tree (every directory, file, mode and byte) is compared before and after: nothing of ours is
// left, not even an empty container or directory we created, and what the user had is byte for byte as it was.
// `claude mcp` and `pi install|remove` are stateful fakes modelled on Claude Code 2.1.332 and Pi 1.6.0 (mocked; the
// live suites run the real ones); every other harness's config is edited by the installer itself, for real.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installersFor } from "../src/harnesses/installers.ts";
import { INSTALLABLE_IDS } from "../src/harnesses/registry.ts";
import { runInstaller } from "../src/install/installer.ts";
import type { InstallContext } from "../src/install/context.ts";
import { put } from "./install-fixture.ts";
import { makeBinDir, makePackageRoot, makeWorld } from "./install-world.ts";
import { ROOT } from "./processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

let sandbox: Sandbox;
beforeEach(() => (sandbox = makeSandbox()));
afterEach(() => sandbox.cleanup());

/** Every entry under `dir`: its type, mode, and bytes (a file) or target (a link), by path relative to `dir`. */
function tree(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (path: string) => {
    const stats = lstatSync(path);
    const mode = (stats.mode & 0o7777).toString(8);
    const name = relative(dir, path) || ".";
    if (stats.isSymbolicLink()) entries[name] = `link ${mode} -> ${readlinkSync(path)}`;
    else if (stats.isDirectory()) {
      entries[name] = `dir ${mode}`;
      for (const child of readdirSync(path)) walk(join(path, child));
    } else entries[name] = `file ${mode} ${readFileSync(path).toString("base64")}`;
  };
  walk(dir);
  return entries;
}

/** What a user of every harness has before installing (each file as that harness, or the user, writes it). */
function userHome(): void {
  const env = sandbox.env;
  const claude = env.CLAUDE_CONFIG_DIR as string;
  put(
    join(claude, "settings.json"),
    '{\n  "model": "opus",\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n  }\n}\n',
  );
  // Claude Code writes .claude.json itself: two-space JSON, no final newline (its own format, so its rewrite keeps it).
  put(
    join(claude, ".claude.json"),
    JSON.stringify({ numStartups: 4, mcpServers: { mine: { type: "stdio", command: "x", args: [], env: {} } } }, null, 2),
  );
  put(join(env.CODEX_HOME as string, "config.toml"), '# mine\nmodel = "o3"\n\n[mcp_servers.mine]\ncommand = "x"\n');
  put(
    join(env.CODEX_HOME as string, "hooks.json"),
    '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 10}]}]}}\n',
  );
  put(
    join(env.PI_CODING_AGENT_DIR as string, "settings.json"),
    `${JSON.stringify({ theme: "dark", packages: ["npm:someone-elses@1.0.0"] }, null, 2)}\n`,
  );
  put(join(env.GEMINI_CLI_HOME as string, ".gemini", "settings.json"), '{\n  // mine\n  "theme": "GitHub"\n}\n');
  put(join(env.QWEN_HOME as string, "settings.json"), '{\n\t"model": {"name": "qwen3-coder"}\n}');
  put(join(env.COPILOT_HOME as string, "config.json"), '{\n  "banner": "never"\n}\n');
  put(join(env.COPILOT_HOME as string, "mcp-config.json"), '{\n  "mcpServers": {}\n}\n');
  put(
    join(env.XDG_CONFIG_HOME as string, "opencode", "opencode.json"),
    '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "tokyonight",\n}\n',
  );
  put(join(sandbox.home, ".tmux.conf"), "set -g mouse on\n");
}

function world(withClaude: boolean): InstallContext {
  const programs: Record<string, string> = { pi: readFileSync(join(ROOT, "test", "fixtures", "fake-pi.mjs"), "utf8") };
  if (withClaude) programs.claude = readFileSync(join(ROOT, "test", "fixtures", "fake-claude-mcp.mjs"), "utf8");
  const bin = makeBinDir(join(sandbox.root, "fake-bin"), programs);
  return makeWorld(sandbox, { packageRoot: makePackageRoot(join(sandbox.root, "pkg with space")), path: [bin] });
}

async function roundTrip(context: InstallContext): Promise<void> {
  const harnesses = await installersFor(INSTALLABLE_IDS);
  const installed = await runInstaller(context, { harnesses, dryRun: false, mode: "install", options: ["trust-codex-hooks"] });
  expect(installed.harnesses.filter((harness) => !harness.ok).map((harness) => [harness.harness, harness.findings])).toEqual([]);
  expect(installed.harnesses.every((harness) => harness.changed)).toBe(true);
  const removed = await runInstaller(context, { harnesses, dryRun: false, mode: "uninstall", options: [] });
  expect(removed.harnesses.filter((harness) => !harness.ok).map((harness) => [harness.harness, harness.findings])).toEqual([]);
}

describe("install --agent all, then uninstall", () => {
  it("gives back the home as it was, byte for byte: through claude mcp and pi (mocked), every other file by the installer", async () => {
    userHome();
    const before = tree(sandbox.home);
    await roundTrip(world(true));
    expect(tree(sandbox.home)).toEqual(before);
  });

  it("the same without claude on PATH (the installer writes .claude.json itself)", async () => {
    userHome();
    const before = tree(sandbox.home);
    await roundTrip(world(false));
    expect(tree(sandbox.home)).toEqual(before);
  });

  // Without claude on PATH: `claude mcp add` would make a .claude.json of Claude's own (its first-start state), which is
  // not ours to remove (docs/install.md, "Uninstall").
  it("on a home with no config at all, leaves none: every file and directory install made goes", async () => {
    const before = tree(sandbox.home);
    await roundTrip(world(false));
    expect(tree(sandbox.home)).toEqual(before);
  });
});
