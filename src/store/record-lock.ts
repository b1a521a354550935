// One lock per record (proper-lockfile's directory lock, `<record>.lock`), with a bounded wait. Kept apart from
// store.ts so readers that never lock (list, status, the picker) do not load proper-lockfile.
import {
  lstatSync,
  mkdir,
  mkdirSync,
  realpath,
  realpathSync,
  rmdir,
  rmdirSync,
  stat,
  statSync,
  utimes,
  utimesSync,
  watch,
  type FSWatcher,
} from "node:fs";
import { basename } from "node:path";
import lockfile from "proper-lockfile";
import { recordPath } from "./records.ts";

export type LockResult<T> = { ok: true; value: T } | { ok: false; reason: "timeout" | "not-needed" | "symlink" | "io"; detail: string };

/**
 * The file system calls proper-lockfile makes, and nothing else: its sync mode copies every key of the `fs` it is
 * given, and copying all of node:fs (whose lazy getters load fs/promises) cost the hook milliseconds per lock.
 */
const LOCK_FS = { mkdir, mkdirSync, realpath, realpathSync, rmdir, rmdirSync, stat, statSync, utimes, utimesSync };

/** Locks older than this are taken over (a holder that crashed). proper-lockfile's minimum. */
export const STALE_LOCK_MS = 2000;

/**
 * Run `fn` holding the record's lock. Waits at most `waitMs` of real time (0: one try), or until `stopWaiting` says the wait
 * is no longer needed, then gives up; the lock is always released in `finally`. A waiter sleeps until the lock directory is removed (inotify through fs.watch) or a short
 * jittered timer fires, whichever comes first: with dozens of hooks on two cores, waking on release instead of
 * polling is what keeps every event inside the bound.
 */
export async function withRecordLock<T>(
  sessionsDir: string,
  digest: string,
  waitMs: number,
  fn: () => Promise<T>,
  { stopWaiting }: { stopWaiting?: () => boolean } = {},
): Promise<LockResult<T>> {
  const target = recordPath(sessionsDir, digest);
  const lockPath = `${target}.lock`;
  const lockName = basename(lockPath);
  if (lstatSync(lockPath, { throwIfNoEntry: false })?.isSymbolicLink())
    return { ok: false, reason: "symlink", detail: `${lockPath} is a symlink` };
  const deadline = Date.now() + waitMs;
  let release: () => void;
  let watcher: FSWatcher | undefined;
  let wake: (() => void) | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        release = lockfile.lockSync(target, {
          realpath: false,
          lockfilePath: lockPath,
          stale: STALE_LOCK_MS,
          onCompromised: () => undefined,
          fs: LOCK_FS,
        });
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ELOCKED") return { ok: false, reason: "io", detail: `${lockPath}: ${code ?? String(error)}` };
        const wait = Math.min(5 + Math.random() * Math.min(2 ** attempt, 40), deadline - Date.now());
        if (stopWaiting?.()) return { ok: false, reason: "not-needed", detail: "another holder did the work" };
        if (wait <= 0) return { ok: false, reason: "timeout", detail: `${lockPath} held past the wait bound` };
        watcher ??= watchForRelease(sessionsDir, lockName, () => wake?.());
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  } finally {
    watcher?.close();
  }
  try {
    return { ok: true, value: await fn() };
  } finally {
    try {
      release();
    } catch {
      // already released or taken over as stale; nothing of ours to remove
    }
  }
}

function watchForRelease(dir: string, name: string, onChange: () => void): FSWatcher | undefined {
  try {
    const watcher = watch(dir, { persistent: false }, (_event, changed) => {
      if (changed === name) onChange();
    });
    watcher.on("error", () => undefined);
    return watcher;
  } catch {
    return undefined; // no inotify watches left: the timer alone still bounds the wait
  }
}
