// The contract between the install engine and a harness adapter: each harness (src/harnesses/<id>/installer.ts) plans
// its install or uninstall, carries its plan out, and examines its own files for doctor.
import { applyPlan } from "./apply.ts";
import type { HookSpec } from "./hook-entries.ts";
import type { HarnessDoctor, HarnessId, HarnessPlan, HarnessReport } from "./plan.ts";
import type { InstallContext } from "./context.ts";

export interface Intent {
  readonly mode: "install" | "uninstall";
  /** The harness-specific install options given (`--<name>`: each harness declares its own, src/harnesses/contract.ts). */
  readonly options: readonly string[];
  /**
   * Uninstall: the top-level containers of a config file that were there and empty before install wrote into it
   * (created-files.ts): emptied again by the uninstall, they stay, so the file comes back byte for byte.
   */
  readonly emptyBefore?: (path: string) => ReadonlySet<string>;
}

export interface InstallProvider {
  readonly id: HarnessId;
  /** Hook harnesses: which native event runs which hook alias (tied to the registry's events by a test). */
  readonly hooks?: readonly HookSpec[];
  plan(world: InstallContext, intent: Intent): Promise<HarnessPlan>;
  apply(plan: HarnessPlan, world: InstallContext): Promise<HarnessReport>;
  doctor(world: InstallContext): Promise<HarnessDoctor>;
}

/** Carry out a plan step by step (what every harness without a special order uses). */
export const genericApply = applyPlan;
