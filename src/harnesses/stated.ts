// Which harnesses state turn outcomes in files of their own, and how to read them (src/fleet/stated.ts uses this).
// Apart from registry.ts so the hook's bundle never loads these readers.
import type { StatedStateReader } from "./contract.ts";
import { claudeStatedState } from "./claude/stated.ts";
import { codexStatedState } from "./codex/stated.ts";

const READERS: Readonly<Record<string, StatedStateReader>> = { claude: claudeStatedState, codex: codexStatedState };

export function statedStateReader(harnessId: string): StatedStateReader | undefined {
  return Object.hasOwn(READERS, harnessId) ? READERS[harnessId] : undefined;
}
