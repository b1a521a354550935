// Shared set-up of the installer tests: a sandboxed HOME, a stand-in package root whose path needs quoting, the
// config paths of Claude Code and Codex, and typical files of a user.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { runInstaller } from "../src/install/installer.ts";
import type { HarnessId, InstallReport } from "../src/install/plan.ts";
import type { InstallContext } from "../src/install/context.ts";
import { makePackageRoot, makeWorld, readText } from "./install-world.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";
import { installersFor } from "../src/harnesses/installers.ts";

export interface InstallFixture {
  sandbox: Sandbox;
  world: InstallContext;
  root: string;
  settings: string;
  claudeJson: string;
  hooksJson: string;
  configToml: string;
}

/** Registers beforeEach/afterEach; the returned object is refilled for every test. */
export function useInstallFixture(): InstallFixture {
  const fixture = {} as InstallFixture;
  beforeEach(() => {
    fixture.sandbox = makeSandbox();
    // Spaces, quotes and a dollar sign: the hook command must survive `sh -c` whatever the install path is.
    fixture.root = makePackageRoot(join(fixture.sandbox.root, `lib dir/it's "tongs" $HOME`));
    fixture.world = makeWorld(fixture.sandbox, { packageRoot: fixture.root });
    fixture.settings = join(fixture.sandbox.env.CLAUDE_CONFIG_DIR as string, "settings.json");
    fixture.claudeJson = join(fixture.sandbox.env.CLAUDE_CONFIG_DIR as string, ".claude.json");
    fixture.hooksJson = join(fixture.sandbox.env.CODEX_HOME as string, "hooks.json");
    fixture.configToml = join(fixture.sandbox.env.CODEX_HOME as string, "config.toml");
  });
  afterEach(() => fixture.sandbox.cleanup());
  return fixture;
}

export function runWith(fixture: InstallFixture) {
  return (
    mode: "install" | "uninstall",
    options: { harnesses?: HarnessId[]; dryRun?: boolean; trust?: boolean; in?: InstallContext } = {},
  ): Promise<InstallReport> =>
    installersFor(options.harnesses ?? ["claude", "codex"]).then((harnesses) =>
      runInstaller(options.in ?? fixture.world, {
        harnesses,
        dryRun: options.dryRun ?? false,
        mode,
        options: options.trust ? ["trust-codex-hooks"] : [],
      }),
    );
}

export function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export const json = (path: string) => JSON.parse(readText(path));
export const commands = (path: string, event: string): string[] =>
  (json(path).hooks?.[event] ?? []).flatMap((group: { hooks: { command: string }[] }) => group.hooks.map((hook) => hook.command));
export const snapshot = (paths: string[]) => Object.fromEntries(paths.map((path) => [path, existsSync(path) ? readFileSync(path) : null]));

export const USER_SETTINGS = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "hooks": {
    "Stop": [
      {"matcher": "", "hooks": [{"type": "command", "command": "notify-send 'Claude is done'"}]}
    ],
    "ConfigChange": [{"hooks": [{"type": "command", "command": "/home/me/bin/backup"}]}]
  },
  "2": "an integer-like key that JSON.stringify would move"
}
`;
export const USER_CODEX_HOOKS = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 10}]}]}}\n`;
export const USER_CONFIG = `# Codex config, hand written
model = "o3"   # the model I like
approval_policy = "on-request"

[mcp_servers.docs] # my docs server
command = "docs-mcp"
args = ["--port", "0"]

# projects
[projects."/home/me/work"]
trust_level = "trusted"

[hooks.state."/elsewhere/hooks.json:stop:0:0"]
trusted_hash = "sha256:0000"
`;
