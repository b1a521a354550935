// One provider per harness: it plans (install or uninstall) and carries out its plan.
import { applyPlan } from "./apply.ts";
import type { HarnessId, HarnessPlan, HarnessReport } from "./plan.ts";
import type { InstallWorld } from "./world.ts";

export interface Intent {
  readonly mode: "install" | "uninstall";
  /** Codex only: record trust for our hooks the way Codex does (opt-in). */
  readonly trustCodexHooks: boolean;
}

export interface InstallProvider {
  readonly id: HarnessId;
  plan(world: InstallWorld, intent: Intent): Promise<HarnessPlan>;
  apply(plan: HarnessPlan, world: InstallWorld): Promise<HarnessReport>;
}

export const genericApply = applyPlan;
