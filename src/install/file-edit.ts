// Reading config files and writing them back safely: through symlinks (dotfile managers link these files), only when
// the file still holds what the plan was computed from, atomically and durably (replace-file.ts: a temp file in the same
// directory, fsync, compared again and renamed over the target), keeping the file's owner and mode.
import { readFileSync, realpathSync, statSync } from "node:fs";
import { createNew, removeIfUnchanged, replaceExisting, type ReplaceOptions, type ReplaceResult } from "./replace-file.ts";

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
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: true, text: null };
    return { ok: false, detail: `${path}: ${code ?? String(error)}` };
  }
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
  if (before === null) return result(createNew(path, after, options));
  let target: string;
  try {
    target = realpathSync(path);
  } catch (error) {
    return { ok: false, detail: `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  return result(await replaceExisting(target, before, after, options));
}

const result = (replaced: ReplaceResult): WriteResult => (replaced.ok ? replaced : { ok: false, detail: replaced.detail });

/** Remove `path`, provided it still holds `before`. */
export function deleteConfigFile(path: string, before: string): WriteResult {
  const current = readConfigFile(path);
  if (!current.ok) return current;
  if (current.text !== before)
    return { ok: false, detail: `${path} changed since the plan was made; nothing removed (run the command again)` };
  return result(removeIfUnchanged(path, before, MAX_CONFIG_BYTES));
}
