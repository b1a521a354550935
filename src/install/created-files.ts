// Which config files (and directories) install created, so uninstall can remove them again. A file that existed before
// install must come back byte for byte, even when that leaves `{}`; a file that install created (a fresh hooks.json,
// Pi's settings.json made by `pi install`) is removed when nothing but what install made was in it. The two cannot be
// told apart from the file, so install records the paths it created in the state dir (installed-files.json); with
// that record gone (`uninstall --purge`, a deleted state dir), such files are kept, as any other. A directory install
// made for such a file (`~/.copilot/hooks/`, `~/.config/opencode/plugin/`) goes too, once it is empty: never one that
// holds anything, whoever put it there.
import { existsSync, lstatSync, readdirSync, rmdirSync } from "node:fs";
import { dirname, join } from "node:path";
import * as z from "zod/mini";
import { ensurePrivateDir, resolveStateDir } from "../store/paths.ts";
import { readJsonFile, writeJsonAtomic } from "../store/records.ts";
import { isEmptyConfig, isEmptyContainer } from "./drop-empty.ts";
import { readConfigFile } from "./file-edit.ts";
import { parseJsonDocument } from "./json-text.ts";
import type { HarnessPlan, Step } from "./plan.ts";

export const CREATED_FILES = "installed-files.json";
const MAX_BYTES = 256 * 1024;

const LedgerSchema = z.object({
  schema_version: z.literal(1),
  created: z.array(z.string()).check(z.maxLength(256)),
  /** Directories install made (absent in a record written before they were kept). */
  created_dirs: z.optional(z.array(z.string()).check(z.maxLength(256))),
  /** [file, key]: a top-level container the user had empty before install wrote into it. */
  empty_before: z.optional(z.array(z.tuple([z.string(), z.string()])).check(z.maxLength(256))),
});

/** What install created: config files, and the directories made to hold them. */
export interface Created {
  readonly files: Set<string>;
  readonly dirs: Set<string>;
  /** By file: its top-level containers that were empty before install put ours in them (uninstall leaves them). */
  readonly emptyBefore: Map<string, Set<string>>;
}

const ledgerPath = (env: NodeJS.ProcessEnv) => join(resolveStateDir(env), CREATED_FILES);

/** Paths install created (an unreadable record counts as none: those files and directories are then kept). */
export function readCreated(env: NodeJS.ProcessEnv): Created {
  const file = readJsonFile(ledgerPath(env), MAX_BYTES);
  const parsed = file.kind === "json" ? LedgerSchema.safeParse(file.value) : undefined;
  const emptyBefore = new Map<string, Set<string>>();
  for (const [path, key] of parsed?.success ? (parsed.data.empty_before ?? []) : [])
    emptyBefore.set(path, new Set([...(emptyBefore.get(path) ?? []), key]));
  return {
    files: new Set(parsed?.success ? parsed.data.created : []),
    dirs: new Set(parsed?.success ? (parsed.data.created_dirs ?? []) : []),
    emptyBefore,
  };
}

export function writeCreated(env: NodeJS.ProcessEnv, created: Created): { ok: true } | { ok: false; detail: string } {
  const dir = resolveStateDir(env);
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return checked;
  const ledger = {
    schema_version: 1,
    created: [...created.files].sort(),
    created_dirs: [...created.dirs].sort(),
    empty_before: [...created.emptyBefore].flatMap(([path, keys]) => [...keys].sort().map((key) => [path, key])).sort(),
  };
  const written = writeJsonAtomic(ledgerPath(env), ledger, MAX_BYTES);
  return written.ok ? { ok: true } : { ok: false, detail: written.detail };
}

/** The top-level keys of a JSON config file that hold an empty object or array (none when it cannot be read). */
export function emptyContainers(path: string): Set<string> {
  const read = readConfigFile(path);
  if (!read.ok || read.text === null) return new Set();
  const doc = parseJsonDocument(read.text, "jsonc");
  if (!doc.ok) return new Set();
  return new Set(Object.keys(doc.data).filter((key) => isEmptyContainer(doc.data[key])));
}

/**
 * The record's `emptyBefore` after a run. Install: a container that was empty before and holds something now was
 * filled by install. Uninstall: the entries of the files it went through are spent (an empty one stayed where it was).
 */
export function updatedEmptyBefore(
  recorded: ReadonlyMap<string, ReadonlySet<string>>,
  mode: "install" | "uninstall",
  emptyBeforeRun: ReadonlyMap<string, ReadonlySet<string>>,
): Map<string, Set<string>> {
  const next = new Map([...recorded].map(([path, keys]) => [path, new Set(keys)]));
  for (const [path, keys] of emptyBeforeRun) {
    if (mode === "uninstall") {
      next.delete(path);
      continue;
    }
    const filled = [...keys].filter((key) => !emptyContainers(path).has(key));
    if (filled.length > 0) next.set(path, new Set([...(next.get(path) ?? []), ...filled]));
  }
  return next;
}

/** The directories above `path` that do not exist, nearest first, up to the first one that does. */
export function missingDirsAbove(path: string): string[] {
  const missing: string[] = [];
  for (let dir = dirname(path); dir !== dirname(dir) && lstatSync(dir, { throwIfNoEntry: false }) === undefined; dir = dirname(dir))
    missing.push(dir);
  return missing;
}

/**
 * Remove the directories install made that are empty now, deepest first (a parent empties once its child goes).
 * Returns those removed; one that holds anything, or is no longer a directory, stays.
 */
export function removeEmptyCreatedDirs(dirs: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      const stats = lstatSync(dir, { throwIfNoEntry: false });
      if (stats?.isDirectory() && readdirSync(dir).length === 0) {
        rmdirSync(dir);
        removed.push(dir);
      }
    } catch {
      // in use, or changed meanwhile: it stays
    }
  }
  return removed;
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

/** An uninstall plan whose tidying after a harness command leaves the containers the user had empty before install. */
export function keepingEmptyBefore(plan: HarnessPlan, emptyBefore: ReadonlyMap<string, ReadonlySet<string>>): HarnessPlan {
  const steps = plan.steps.map((step): Step => {
    const kept = step.kind === "drop-empty" ? emptyBefore.get(step.path) : undefined;
    return step.kind === "drop-empty" && kept ? { ...step, keys: step.keys.filter((key) => !kept.has(key)) } : step;
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
