// install / uninstall across harnesses: each provider plans; --dry-run reports the plan, otherwise it is carried out.
import { existsSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { describeStep, reportOf } from "./apply.ts";
import {
  emptyContainers,
  filesOf,
  keepingEmptyBefore,
  missingDirsAbove,
  readCreated,
  removeEmptyCreatedDirs,
  removingCreatedFiles,
  updatedCreatedFiles,
  updatedEmptyBefore,
  writeCreated,
  type Created,
} from "./created-files.ts";
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
  const created = readCreated(world.env);
  let recorded: Created = created;
  for (const provider of options.harnesses) {
    const intent = { ...options, emptyBefore: (path: string) => created.emptyBefore.get(path) ?? new Set<string>() };
    const planned = foreignHomeWarning(world, await provider.plan(world, intent));
    const plan =
      options.mode === "uninstall" ? keepingEmptyBefore(removingCreatedFiles(planned, created.files), created.emptyBefore) : planned;
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
    const missingDirs = filesOf(plan).flatMap(missingDirsAbove);
    const emptyBeforeRun = new Map(filesOf(plan).map((path) => [path, emptyContainers(path)]));
    const report = await provider.apply(plan, world);
    const dirs = new Set(recorded.dirs);
    if (options.mode === "install") for (const dir of missingDirs) if (existsSync(dir)) dirs.add(dir);
    recorded = {
      files: updatedCreatedFiles(recorded.files, options.mode, existedBefore),
      dirs,
      emptyBefore: updatedEmptyBefore(recorded.emptyBefore, options.mode, emptyBeforeRun),
    };
    harnesses.push(report);
  }
  // The directories install made for its files, once nothing is left in them (not even the user's: then they stay).
  const removedDirs = options.mode === "uninstall" && !options.dryRun ? removeEmptyCreatedDirs(recorded.dirs) : [];
  if (removedDirs.length > 0) recorded = { ...recorded, dirs: new Set([...recorded.dirs].filter((dir) => !removedDirs.includes(dir))) };
  if (!isDeepStrictEqual(recorded, created)) {
    const written = writeCreated(world.env, recorded);
    const last = harnesses.at(-1);
    if (!written.ok && last)
      harnesses[harnesses.length - 1] = {
        ...last,
        findings: [...last.findings, warning(`could not record which files install created (${written.detail}); uninstall will keep them`)],
      };
  }
  return {
    action: options.mode,
    dry_run: options.dryRun,
    ok: harnesses.every((report) => report.ok),
    harnesses,
    ...(removedDirs.length > 0 ? { removed_directories: removedDirs } : {}),
  };
}
