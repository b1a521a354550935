// @ts-check
// Where the hook script and a Node.js to run it are. `pi install <local dir>` loads the package in place (Pi records
// the directory's path in settings.json and imports the extension from there, copying nothing), so the hook is found
// beside the bridge: `<package>/pi-bridge/../bin/tongs-agents-hook.cjs`, both in a checkout and in an npm install of
// tongs-agents. Fallbacks cover a copied bridge (`pi -e` caches, `pi install npm:`): the TONGS_AGENTS_HOOK override
// first, then `tongs-agents-hook` found on PATH (npm's bin link resolved to its script).
import { existsSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

export const HOOK_FILE = "tongs-agents-hook.cjs";
/** The hook shim (docs/contract.md, "The hook shim"), beside the hook in the package's bin/. */
export const SHIM_FILE = "tongs-agents-hook.sh";
const SCRIPT_EXTENSIONS = [".cjs", ".js", ".mjs"];

/**
 * @typedef {{ isFile(path: string): boolean, realpath(path: string): string }} FileSystem
 * @typedef {{ ok: true, path: string, source: "env" | "package" | "path" } | { ok: false, reason: string }} HookLocation
 */

/** @type {FileSystem} */
export const realFileSystem = {
  isFile: (path) => {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  },
  realpath: (path) => realpathSync(path),
};

/**
 * @param {FileSystem} fs
 * @param {string} path
 * @returns {string | undefined}
 */
function tryRealpath(fs, path) {
  try {
    return fs.realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * Find the hook script.
 * @param {{ env: Record<string, string | undefined>, bridgeDir: string | undefined, fs?: FileSystem }} options
 * @returns {HookLocation}
 */
export function locateHook({ env, bridgeDir, fs = realFileSystem }) {
  const override = env.TONGS_AGENTS_HOOK;
  if (override) {
    // An explicit choice is never second-guessed by a fallback: a wrong value should be visible, not papered over.
    if (!isAbsolute(override)) return { ok: false, reason: "TONGS_AGENTS_HOOK is not an absolute path" };
    return fs.isFile(override) ? { ok: true, path: override, source: "env" } : { ok: false, reason: "TONGS_AGENTS_HOOK is not a file" };
  }
  if (bridgeDir) {
    // The directory as loaded, then as resolved (a symlinked package, e.g. `npm link`).
    for (const dir of new Set([bridgeDir, tryRealpath(fs, bridgeDir) ?? bridgeDir])) {
      const candidate = join(dir, "..", "bin", HOOK_FILE);
      if (fs.isFile(candidate)) return { ok: true, path: candidate, source: "package" };
    }
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const resolved = tryRealpath(fs, join(dir, "tongs-agents-hook"));
    if (resolved && SCRIPT_EXTENSIONS.some((extension) => resolved.endsWith(extension)) && fs.isFile(resolved)) {
      return { ok: true, path: resolved, source: "path" };
    }
  }
  return { ok: false, reason: "tongs-agents-hook not found beside the bridge or on PATH" };
}

/**
 * The hook shim beside the hook script, if the package has one: a shell and one program per event, where the hook is a
 * Node process per event. The shim queues the event for the resident drainer, capturing the bridge's process (its
 * parent, the emitter the payload names) as it runs; where it cannot (no /proc, macOS) it runs the hook itself.
 * @param {string} hookPath
 * @param {FileSystem} [fs]
 * @returns {string | undefined}
 */
export function shimBeside(hookPath, fs = realFileSystem) {
  const candidate = join(dirname(hookPath), SHIM_FILE);
  return fs.isFile(candidate) ? candidate : undefined;
}

/**
 * The Node.js that runs the hook: Pi's own when Pi runs on Node (the usual npm install), else `node` from PATH (a Pi
 * binary compiled with Bun has no Node.js to lend). TONGS_AGENTS_NODE overrides both.
 * @param {{ env: Record<string, string | undefined>, execPath: string, versions: Record<string, string | undefined>, fs?: FileSystem }} options
 * @returns {string | undefined}
 */
export function locateNode({ env, execPath, versions, fs = realFileSystem }) {
  const override = env.TONGS_AGENTS_NODE;
  if (override) return isAbsolute(override) && fs.isFile(override) ? override : undefined;
  if (versions.bun === undefined && versions.node !== undefined) return execPath;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, "node");
    if (fs.isFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The directory of a module, from its `import.meta.url`; jiti (Pi's loader) provides it for ES modules.
 * @param {string | undefined} moduleUrl
 * @returns {string | undefined}
 */
export function moduleDirectory(moduleUrl) {
  if (typeof moduleUrl !== "string" || !moduleUrl.startsWith("file:")) return undefined;
  try {
    const path = fileURLToPath(moduleUrl);
    return existsSync(path) ? dirname(path) : undefined;
  } catch {
    return undefined;
  }
}
