// Where state lives, and the checks that keep it private and free of symlink tricks.
import { chmodSync, lstatSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

export const STATE_DIR_ENV = "TONGS_AGENTS_STATE_DIR";
/** The hook's debug log in the state dir (TONGS_AGENTS_DEBUG=1; src/hook/debug-log.ts), rotated to `hook.log.1`. */
export const DEBUG_LOG_FILE = "hook.log";

/** $TONGS_AGENTS_STATE_DIR, else $XDG_STATE_HOME/tongs-agents, else ~/.local/state/tongs-agents (absolute paths only). */
export function resolveStateDir(env: NodeJS.ProcessEnv = process.env, home: () => string = homedir): string {
  const explicit = env[STATE_DIR_ENV];
  if (explicit && isAbsolute(explicit)) return explicit;
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "tongs-agents");
  return join(home(), ".local", "state", "tongs-agents");
}

export function sessionsDirOf(stateDir: string): string {
  return join(stateDir, "sessions");
}

export type DirCheck = { ok: true } | { ok: false; reason: "symlink" | "not-a-directory" | "foreign-owner" | "io"; detail: string };

/**
 * Create `dir` (mode 0700) when missing, and refuse it when it is a symlink, not a directory, or owned by someone else.
 * A directory of ours that others can read is tightened to 0700.
 */
export function ensurePrivateDir(dir: string): DirCheck {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(dir);
    if (stats.isSymbolicLink()) return { ok: false, reason: "symlink", detail: `${dir} is a symlink; refusing to use it` };
    if (!stats.isDirectory()) return { ok: false, reason: "not-a-directory", detail: `${dir} is not a directory` };
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) return { ok: false, reason: "foreign-owner", detail: `${dir} is owned by uid ${stats.uid}, not ${uid}` };
    if ((stats.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: "io", detail: `${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
}

/** Both the state dir and its sessions dir, checked in order. Synchronous: two local directories (see store.ts). */
export function ensureStateDirs(stateDir: string): DirCheck & { sessionsDir: string } {
  const sessionsDir = sessionsDirOf(stateDir);
  const state = ensurePrivateDir(stateDir);
  if (!state.ok) return { ...state, sessionsDir };
  return { ...ensurePrivateDir(sessionsDir), sessionsDir };
}
