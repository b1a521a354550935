// install / uninstall across harnesses: each provider plans; --dry-run reports the plan, otherwise it is carried out.
import { describeStep, reportOf } from "./apply.ts";
import { planClaude } from "./claude.ts";
import { planCodex } from "./codex.ts";
import { applyPi, planPi } from "./pi.ts";
import { foreignHomeWarning } from "./home-owner.ts";
import type { HarnessId, InstallReport } from "./plan.ts";
import { genericApply, type InstallProvider, type Intent } from "./provider.ts";
import type { InstallWorld } from "./world.ts";

export const PROVIDERS: Readonly<Record<HarnessId, InstallProvider>> = {
  claude: { id: "claude", plan: planClaude, apply: genericApply },
  codex: { id: "codex", plan: planCodex, apply: genericApply },
  pi: { id: "pi", plan: planPi, apply: applyPi },
};

export interface InstallOptions extends Intent {
  readonly harnesses: readonly HarnessId[];
  readonly dryRun: boolean;
}

export async function runInstaller(world: InstallWorld, options: InstallOptions): Promise<InstallReport> {
  const harnesses = [];
  for (const id of options.harnesses) {
    const provider = PROVIDERS[id];
    const plan = foreignHomeWarning(world, await provider.plan(world, options));
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
