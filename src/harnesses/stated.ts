// How to read what a harness states in files of its own (src/fleet/stated.ts uses this): `stated` in its folder's
// stated.ts, for a harness with the `stated` capability, loaded by id so the hook's bundle never carries these readers.
import { hasCapability, findHarness } from "./registry.ts";
import type { StatedStateReader } from "./contract.ts";

export async function statedStateReader(harnessId: string): Promise<StatedStateReader | undefined> {
  const harness = findHarness(harnessId);
  if (!harness || !hasCapability(harness, "stated")) return undefined;
  const { stated } = (await import(`./${harness.id}/stated.ts`)) as { stated: StatedStateReader };
  return stated;
}
