// Reading config files and writing them back safely: through symlinks (dotfile managers link these files), only when
// the file still holds what the plan was computed from, atomically and durably (store.ts's writeFileAtomic: a temp file
// in the same directory, fsync, renamed over the target), keeping the file's mode.
import { mkdirSync, readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../store/records.ts";

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

/** Replace `path` with `after`, provided it still holds `before` (null: does not exist). */
export function writeConfigFile(path: string, before: string | null, after: string): WriteResult {
  const current = readConfigFile(path);
  if (!current.ok) return current;
  if (current.text !== before) return { ok: false, detail: `${path} changed since the plan was made; nothing written (run the command again)` };
  let target = path;
  let mode = 0o600;
  try {
    if (before !== null) {
      target = realpathSync(path);
      mode = statSync(target).mode & 0o7777;
    } else mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    return { ok: false, detail: `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  const written = writeFileAtomic(target, after, { maxBytes: MAX_CONFIG_BYTES, mode, sync: true });
  return written.ok ? { ok: true } : { ok: false, detail: written.detail };
}

/** Remove `path`, provided it still holds `before`. */
export function deleteConfigFile(path: string, before: string): WriteResult {
  const current = readConfigFile(path);
  if (!current.ok) return current;
  if (current.text !== before) return { ok: false, detail: `${path} changed since the plan was made; nothing removed (run the command again)` };
  try {
    unlinkSync(path);
    return { ok: true };
  } catch (error) {
    return { ok: false, detail: `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
}
