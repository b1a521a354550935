// install / uninstall across harnesses: each provider plans; --dry-run reports the plan, otherwise it is carried out.
import { existsSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { describeStep, reportOf } from "./apply.ts";
import { filesOf, readCreatedFiles, removingCreatedFiles, updatedCreatedFiles, writeCreatedFiles } from "./created-files.ts";
import { warning, type HarnessReport, type InstallReport } from "./plan.ts";
import type { InstallProvider, Intent } from "./provider.ts";
import { foreignHomeWarning } from "./home-owner.ts";
import type { InstallContext } from "./context.ts";

export interface InstallOptions extends Intent {
  /** The harnesses' installers, in order (src/harnesses/installers.ts). */
  readonly harnesses: readonly InstallProvider[];
  readonly dryRun: boolean;
}

export async function runInstaller(world: InstallContext, options: InstallOptions): Promise<InstallReport> {
  const harnesses: HarnessReport[] = [];
  const created = readCreatedFiles(world.env);
  let recorded = created;
  for (const provider of options.harnesses) {
    const planned = foreignHomeWarning(world, await provider.plan(world, options));
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
    if (!written.ok && last)
      harnesses[harnesses.length - 1] = {
        ...last,
        findings: [...last.findings, warning(`could not record which files install created (${written.detail}); uninstall will keep them`)],
      };
  }
  return { action: options.mode, dry_run: options.dryRun, ok: harnesses.every((report) => report.ok), harnesses };
}
