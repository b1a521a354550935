// Which config files install created, so uninstall can remove them again. A file that existed before install must
// come back byte for byte, even when that leaves `{}`; a file that install created (a fresh hooks.json, Pi's
// settings.json made by `pi install`) is removed when nothing but what install made was in it. The two cannot be
// told apart from the file, so install records the paths it created in the state dir (installed-files.json); with
// that record gone (`uninstall --purge`, a deleted state dir), such files are kept, as any other.
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { ensurePrivateDir, resolveStateDir } from "../store/paths.ts";
import { readJsonFile, writeJsonAtomic } from "../store/records.ts";
import { isEmptyConfig } from "./drop-empty.ts";
import type { HarnessPlan, Step } from "./plan.ts";

export const CREATED_FILES = "installed-files.json";
const MAX_BYTES = 256 * 1024;

const LedgerSchema = z.object({ schema_version: z.literal(1), created: z.array(z.string()).check(z.maxLength(256)) });

const ledgerPath = (env: NodeJS.ProcessEnv) => join(resolveStateDir(env), CREATED_FILES);

/** Paths install created (an unreadable record counts as none: those files are then kept). */
export function readCreatedFiles(env: NodeJS.ProcessEnv): Set<string> {
  const file = readJsonFile(ledgerPath(env), MAX_BYTES);
  const parsed = file.kind === "json" ? LedgerSchema.safeParse(file.value) : undefined;
  return new Set(parsed?.success ? parsed.data.created : []);
}

export function writeCreatedFiles(env: NodeJS.ProcessEnv, created: ReadonlySet<string>): { ok: true } | { ok: false; detail: string } {
  const dir = resolveStateDir(env);
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return checked;
  const written = writeJsonAtomic(ledgerPath(env), { schema_version: 1, created: [...created].sort() }, MAX_BYTES);
  return written.ok ? { ok: true } : { ok: false, detail: written.detail };
}

/** The config files a plan may create or remove: its file steps' paths and the files its commands may create. */
export function filesOf(plan: HarnessPlan): string[] {
  return [...new Set([...plan.steps.flatMap((step) => (step.kind === "run" ? [] : [step.path])), ...(plan.files ?? [])])];
}

/**
 * An uninstall plan that also removes the files install created once nothing else is in them: a write that leaves
 * such a file empty becomes its deletion, and tidying after a harness command may delete it.
 */
export function removingCreatedFiles(plan: HarnessPlan, created: ReadonlySet<string>): HarnessPlan {
  const steps = plan.steps.map((step): Step => {
    if (!created.has("path" in step ? step.path : "")) return step;
    if (step.kind === "write" && step.before !== null && isEmptyConfig(step.after))
      return {
        kind: "delete",
        path: step.path,
        before: step.before,
        why: [...step.why, "remove the file: install created it, and nothing else is in it"],
      };
    if (step.kind === "drop-empty")
      return { ...step, deleteIfEmpty: true, why: [...step.why, "and the file, if install created it and nothing else is in it"] };
    return step;
  });
  return { ...plan, steps };
}

/** The record after a run: files that appeared are added (install), files that are gone are dropped. */
export function updatedCreatedFiles(
  created: ReadonlySet<string>,
  mode: "install" | "uninstall",
  existedBefore: ReadonlyMap<string, boolean>,
): Set<string> {
  const next = new Set(created);
  for (const [path, existed] of existedBefore) {
    const exists = existsSync(path);
    if (mode === "install" && !existed && exists) next.add(path);
    if (!exists) next.delete(path);
  }
  return next;
}
