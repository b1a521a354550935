// The installer of every harness that has one, in the order install, uninstall and doctor report them. Not part of
// the hook's import graph: the registry (registry.ts) is what the hook knows of harnesses.
import type { InstallProvider } from "../install/provider.ts";
import { claudeInstaller } from "./claude/installer.ts";
import { codexInstaller } from "./codex/installer.ts";
import { geminiInstaller } from "./gemini/installer.ts";
import { copilotInstaller } from "./copilot/installer.ts";
import { opencodeInstaller } from "./opencode/installer.ts";
import { piInstaller } from "./pi/installer.ts";
import { qwenInstaller } from "./qwen/installer.ts";
import type { HarnessId } from "./registry.ts";

export const INSTALLERS: readonly InstallProvider[] = [
  claudeInstaller,
  codexInstaller,
  piInstaller,
  geminiInstaller,
  qwenInstaller,
  copilotInstaller,
  opencodeInstaller,
];
export const INSTALLABLE_IDS: readonly string[] = INSTALLERS.map((installer) => installer.id);
/** What `install` with no --agent configures. */
export const DEFAULT_INSTALL_IDS: readonly HarnessId[] = ["claude", "codex"];

export function installersFor(ids: readonly string[]): InstallProvider[] {
  return INSTALLERS.filter((installer) => ids.includes(installer.id));
}
