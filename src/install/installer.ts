// install / uninstall across harnesses: each provider plans; --dry-run reports the plan, otherwise it is carried out.
import { existsSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { describeStep, reportOf } from "./apply.ts";
import { planClaude } from "./claude.ts";
import { planCodex } from "./codex.ts";
import { filesOf, readCreatedFiles, removingCreatedFiles, updatedCreatedFiles, writeCreatedFiles } from "./created-files.ts";
import { applyPi, planPi } from "./pi.ts";
import { warning, type HarnessId, type HarnessReport, type InstallReport } from "./plan.ts";
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
  const harnesses: HarnessReport[] = [];
  const created = readCreatedFiles(world.env);
  let recorded = created;
  for (const id of options.harnesses) {
    const provider = PROVIDERS[id];
    const planned = await provider.plan(world, options);
    const plan = options.mode === "uninstall" ? removingCreatedFiles(planned, created) : planned;
    if (options.dryRun) {
      harnesses.push(
        reportOf(
          plan,
          plan.steps.map((step) => describeStep(step, "planned")),
        ),
      );
      continue;
    }
    const existedBefore = new Map(filesOf(plan).map((path) => [path, existsSync(path)]));
    const report = await provider.apply(plan, world);
    recorded = updatedCreatedFiles(recorded, options.mode, existedBefore);
    harnesses.push(report);
  }
  if (!isDeepStrictEqual(recorded, created)) {
    const written = writeCreatedFiles(world.env, recorded);
    const last = harnesses.at(-1);
    if (!written.ok && last) harnesses[harnesses.length - 1] = { ...last, findings: [...last.findings, warning(`could not record which files install created (${written.detail}); uninstall will keep them`)] };
  }
  return { action: options.mode, dry_run: options.dryRun, ok: harnesses.every((report) => report.ok), harnesses };
}
