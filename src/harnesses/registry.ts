// The registry of agent harnesses tongs-agents understands, one adapter folder each. An id or event that is not here
// is rejected.
import { claudeHarness } from "./claude/harness.ts";
import { clineHarness } from "./cline/harness.ts";
import { codexHarness } from "./codex/harness.ts";
import { copilotHarness } from "./copilot/harness.ts";
import type { Capability, Harness, HookAlias, InstallOption } from "./contract.ts";
import { geminiHarness } from "./gemini/harness.ts";
import { kimiHarness } from "./kimi/harness.ts";
import { opencodeHarness } from "./opencode/harness.ts";
import { piHarness } from "./pi/harness.ts";
import { qwenHarness } from "./qwen/harness.ts";

export const HARNESSES = [
  claudeHarness,
  codexHarness,
  piHarness,
  geminiHarness,
  qwenHarness,
  copilotHarness,
  opencodeHarness,
  kimiHarness,
  clineHarness,
] as const satisfies readonly Harness[];

export type HarnessId = (typeof HARNESSES)[number]["id"];

export function findHarness(id: string): Harness | undefined {
  return (HARNESSES as readonly Harness[]).find((harness) => harness.id === id);
}

export function acceptsEvent(harness: Harness, alias: string): alias is HookAlias {
  return (harness.events as readonly string[]).includes(alias);
}

export function hasCapability(harness: Harness, capability: Capability): boolean {
  return harness.capabilities.includes(capability);
}

/** The harnesses that install something (an installer.ts in their folder), in the order install reports them. */
const INSTALLABLE: readonly Harness[] = HARNESSES.filter(
  (harness) => hasCapability(harness, "hooks") || hasCapability(harness, "extension"),
);

export const INSTALLABLE_IDS = INSTALLABLE.map((harness) => harness.id as HarnessId);
/** What `install` with no --agent configures. */
export const DEFAULT_INSTALL_IDS = INSTALLABLE.filter((harness) => harness.installByDefault === true).map(
  (harness) => harness.id as HarnessId,
);
/** Every harness's own install options, with the harness they belong to. */
export const INSTALL_OPTIONS: readonly (InstallOption & { readonly harness: HarnessId })[] = INSTALLABLE.flatMap((harness) =>
  (harness.installOptions ?? []).map((option) => ({ ...option, harness: harness.id as HarnessId })),
);
