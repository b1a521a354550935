// The registry of agent harnesses tongs-agents understands, one adapter folder each. An id or event that is not here
// is rejected.
import { claudeHarness } from "./claude/harness.ts";
import { codexHarness } from "./codex/harness.ts";
import { copilotHarness } from "./copilot/harness.ts";
import type { Capability, Harness, HookAlias } from "./contract.ts";
import { geminiHarness } from "./gemini/harness.ts";
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
