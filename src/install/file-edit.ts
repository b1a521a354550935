// Reading config files and writing them back safely: through symlinks (dotfile managers link these files, and may
// leave a link whose target is not there yet: the file is then created where the link points), only when the file
// still holds what the plan was computed from, atomically and durably (replace-file.ts: a temp file in the same
// directory, fsync, compared again and renamed over the target), keeping the file's owner and mode.
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createNew, ioDetail, removeIfUnchanged, replaceExisting, type ReplaceOptions, type ReplaceResult } from "./replace-file.ts";

const MAX_CONFIG_BYTES = 32 * 1024 * 1024;

export type ReadResult = { ok: true; text: string | null } | { ok: false; detail: string };

/** The file's text, or null when it does not exist. */
export function readConfigFile(path: string): ReadResult {
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return { ok: false, detail: `${path} is not a regular file` };
    if (stats.size > MAX_CONFIG_BYTES) return { ok: false, detail: `${path} is larger than ${MAX_CONFIG_BYTES} bytes` };
    return { ok: true, text: readFileSync(path, "utf8") };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: true, text: null };
    return { ok: false, detail: ioDetail(path, error) };
  }
}

/** Symbolic links followed before giving up, as the kernel does (Linux: 40). */
const MAX_LINKS = 40;

/**
 * Where a file that does not exist at `path` is created: at `path`, or, when `path` is a symbolic link to nothing (a
 * dotfile manager's link made before its target), at the end of its links, provided that directory exists. A missing
 * directory there is not made: it is most likely the dotfile repository, not cloned yet, and a directory made in its
 * place would be in the way of its clone.
 */
export function creationTarget(path: string): { ok: true; target: string } | { ok: false; detail: string } {
  let target = path;
  for (let links = 0; links <= MAX_LINKS; links++) {
    const stats = lstatSync(target, { throwIfNoEntry: false });
    if (stats === undefined || !stats.isSymbolicLink()) {
      if (stats !== undefined || target === path || statSync(dirname(target), { throwIfNoEntry: false })?.isDirectory())
        return { ok: true, target };
      return {
        ok: false,
        detail: `${path} is a symbolic link to ${target}, which does not exist, nor does its directory ${dirname(target)}; nothing written: create that directory (or put your dotfiles in place), or remove the link, then run the command again`,
      };
    }
    target = resolve(dirname(target), readlinkSync(target));
  }
  return {
    ok: false,
    detail: `${path}: its symbolic links lead in a loop; nothing written: fix or remove the link, then run the command again`,
  };
}

export type WriteResult = { ok: true } | { ok: false; detail: string };

/**
 * Replace `path` with `after`, provided it still holds `before` (null: does not exist), keeping its owner and mode.
 * Compared again immediately before the rename, and checked after it (replace-file.ts): never reported written when
 * what it replaced was not what the plan was made from.
 */
export async function writeConfigFile(
  path: string,
  before: string | null,
  after: string,
  { probe }: { probe?: ReplaceOptions["probe"] } = {},
): Promise<WriteResult> {
  const current = readConfigFile(path);
  if (!current.ok) return current;
  if (current.text !== before)
    return { ok: false, detail: `${path} changed since the plan was made; nothing written (run the command again)` };
  const options = { maxBytes: MAX_CONFIG_BYTES, ...(probe ? { probe } : {}) };
  if (before === null) {
    const created = creationTarget(path);
    return created.ok ? result(createNew(created.target, after, options)) : created;
  }
  const target = resolved(path);
  return target.ok ? result(await replaceExisting(target.target, before, after, options)) : target;
}

/** The file a path leads to, symlinks resolved. */
function resolved(path: string): { ok: true; target: string } | { ok: false; detail: string } {
  try {
    return { ok: true, target: realpathSync(path) };
  } catch (error) {
    return { ok: false, detail: ioDetail(path, error) };
  }
}

const result = (replaced: ReplaceResult): WriteResult => (replaced.ok ? replaced : { ok: false, detail: replaced.detail });

/**
 * Remove `path`, provided it still holds `before`. Through a symlink, the file it leads to goes and the link stays: a
 * file install created through a dotfile manager's link leaves the link as it found it.
 */
export function deleteConfigFile(path: string, before: string): WriteResult {
  const current = readConfigFile(path);
  if (!current.ok) return current;
  if (current.text !== before)
    return { ok: false, detail: `${path} changed since the plan was made; nothing removed (run the command again)` };
  const target = resolved(path);
  return target.ok ? result(removeIfUnchanged(target.target, before, MAX_CONFIG_BYTES)) : target;
}
