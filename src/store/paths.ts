// Where state lives, and the checks that keep it private and free of symlink tricks.
import { lstatSync, mkdirSync } from "node:fs";
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

export type DirCheck =
  { ok: true } | { ok: false; reason: "symlink" | "not-a-directory" | "foreign-owner" | "open-mode" | "io"; detail: string };

/**
 * Create `dir` (mode 0700) when missing, and refuse it when it is a symlink, not a directory, owned by someone else, or
 * open to others. An existing directory's mode is never changed: it may be one the user shares on purpose (a sticky
 * 1777 directory; as root, /tmp itself), so it is refused with the reason instead.
 */
export function ensurePrivateDir(dir: string): DirCheck {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // Something that is not a directory is in the way: say what it is rather than EEXIST.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ENOTDIR") return ioFailure(dir, error);
  }
  return checkPrivateDir(dir);
}

/** The checks of `ensurePrivateDir` on a directory that must already exist; nothing is created or changed. */
export function checkPrivateDir(dir: string): DirCheck {
  try {
    const stats = lstatSync(dir);
    if (stats.isSymbolicLink()) return { ok: false, reason: "symlink", detail: `${dir} is a symlink; refusing to use it` };
    if (!stats.isDirectory()) return { ok: false, reason: "not-a-directory", detail: `${dir} is not a directory` };
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid)
      return { ok: false, reason: "foreign-owner", detail: `${dir} is owned by uid ${stats.uid}, not ${uid}` };
    // A directory created here is 0700 (umask only removes bits), so open bits mean someone else made it so.
    if ((stats.mode & 0o077) !== 0) {
      const mode = (stats.mode & 0o7777).toString(8).padStart(4, "0");
      return {
        ok: false,
        reason: "open-mode",
        detail: `${dir} has mode ${mode}, open to other users; refusing to use it (tongs-agents never changes the mode of a directory it did not create): chmod 700 it, or point ${STATE_DIR_ENV} at a private directory`,
      };
    }
    return { ok: true };
  } catch (error) {
    return ioFailure(dir, error);
  }
}

function ioFailure(dir: string, error: unknown): DirCheck {
  return { ok: false, reason: "io", detail: `${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
}

/** Both the state dir and its sessions dir, checked in order. Synchronous: two local directories (see store.ts). */
/**
 * For readers: the state dirs as they are, created by nobody. A state dir that does not exist yet holds no sessions
 * (`missing`); a reader must not create it (a status line refreshing while the user removes a state dir, the demo
 * cleaning up its own, would bring it back).
 */
export function stateDirsIfPresent(
  stateDir: string,
): (DirCheck & { sessionsDir: string }) | { ok: false; reason: "missing"; sessionsDir: string } {
  const sessionsDir = sessionsDirOf(stateDir);
  if (lstatSync(stateDir, { throwIfNoEntry: false }) === undefined) return { ok: false, reason: "missing", sessionsDir };
  const state = checkPrivateDir(stateDir);
  if (!state.ok) return { ...state, sessionsDir };
  if (lstatSync(sessionsDir, { throwIfNoEntry: false }) === undefined) return { ok: false, reason: "missing", sessionsDir };
  return { ...checkPrivateDir(sessionsDir), sessionsDir };
}

export function ensureStateDirs(stateDir: string): DirCheck & { sessionsDir: string } {
  const sessionsDir = sessionsDirOf(stateDir);
  const state = ensurePrivateDir(stateDir);
  if (!state.ok) return { ...state, sessionsDir };
  return { ...ensurePrivateDir(sessionsDir), sessionsDir };
}
