// install / uninstall across harnesses: each provider plans; --dry-run reports the plan, otherwise it is carried out.
import { describeStep, reportOf } from "./apply.ts";
import type { InstallReport } from "./plan.ts";
import type { InstallProvider, Intent } from "./provider.ts";
import type { InstallWorld } from "./world.ts";

export interface InstallOptions extends Intent {
  /** The harnesses' installers, in order (src/harnesses/installers.ts). */
  readonly harnesses: readonly InstallProvider[];
  readonly dryRun: boolean;
}

export async function runInstaller(world: InstallWorld, options: InstallOptions): Promise<InstallReport> {
  const harnesses = [];
  for (const provider of options.harnesses) {
    const plan = await provider.plan(world, options);
    harnesses.push(
      options.dryRun
        ? reportOf(
            plan,
            plan.steps.map((step) => describeStep(step, "planned")),
          )
        : await provider.apply(plan, world),
    );
  }
  return { action: options.mode, dry_run: options.dryRun, ok: harnesses.every((report) => report.ok), harnesses };
}
