// One lock per record (`<record>.lock`, a directory), with a bounded wait, and fenced writes: a holder's write lands
// only while the lock is still its own. Kept apart from records.ts so readers that never lock (list, status, the
// picker) do not load it.
//
// The lock directory holds one directory of its holder, `holder-<pid>-<start time>-<nonce>`. It is made whole in a
// private directory and renamed into place, which fails while another holder's lock is there (a directory that is not
// empty cannot be replaced). A holder writes a file by creating it inside its own holder directory and renaming it over
// the target; it removes a file by renaming it into that directory first. When a lock is taken over (its holder died,
// or stopped making progress: a SIGSTOP, a suspended machine, a descheduled process), the lock directory is renamed
// away whole, so the old holder's paths under `<record>.lock/holder-...` no longer exist: whatever it does when it
// wakes (create its temp file, rename it, remove a file) fails with ENOENT and changes nothing (docs/reliability.md,
// "Fencing"). A rename is one system call: a signal stops a process before it or after it, never inside it.
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, join } from "node:path";
import { recordPath, uniqueSuffix, writeThroughTemp, type WriteResult } from "./records.ts";
import { LIMITS } from "../core/bounds.ts";
import { faultPoint } from "./fault-points.ts";

export type LockResult<T> = { ok: true; value: T } | { ok: false; reason: "timeout" | "not-needed" | "symlink" | "io"; detail: string };

/** A live holder whose lock shows no sign of progress for this long is taken over (its writes are fenced off). */
export const STALE_LOCK_MS = 2000;

/** What a holder may do to the store while it holds the lock; every change is fenced by it. */
export interface RecordLock {
  /** Replace `path` (in the lock's directory) with `text`, atomically; fails, changing nothing, once the lock is lost. */
  write(path: string, text: string, maxBytes?: number): WriteResult;
  /** Remove `path` (in the lock's directory); false, changing nothing, when the lock is lost or the file is gone. */
  remove(path: string): boolean;
  /** Is the lock still this holder's? (Advisory: only the fenced calls above are safe against a takeover.) */
  held(): boolean;
}

const HOLDER = /^holder-(\d+)-(\d*)-[0-9a-f]+$/;

/** This process's start time in clock ticks (Linux), or "" where /proc is not there. */
const ownStart = (() => {
  let start: string | undefined;
  return () => (start ??= startTimeOf(process.pid) ?? "");
})();

function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" || fields[0] === "X" ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** Is the process named by a holder directory still the one that made it? */
function holderAlive(pid: number, start: string): boolean {
  if (start !== "") return startTimeOf(pid) === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Run `fn` holding the lock named `name` in `sessionsDir` (a record's digest, or another store file's name). Waits at
 * most `waitMs` of real time (0: one try), or until `stopWaiting` says the wait is no longer needed, then gives up;
 * the lock is always released in `finally`. A waiter sleeps until the lock directory changes (inotify through
 * fs.watch) or a short jittered timer fires, whichever comes first.
 */
export async function withRecordLock<T>(
  sessionsDir: string,
  name: string,
  waitMs: number,
  fn: (lock: RecordLock) => Promise<T>,
  { stopWaiting, staleMs = STALE_LOCK_MS }: { stopWaiting?: () => boolean; staleMs?: number } = {},
): Promise<LockResult<T>> {
  const lockPath = `${recordPath(sessionsDir, name)}.lock`;
  if (lstatSync(lockPath, { throwIfNoEntry: false })?.isSymbolicLink())
    return { ok: false, reason: "symlink", detail: `${lockPath} is a symlink` };
  const deadline = Date.now() + waitMs;
  const nonce = uniqueSuffix();
  const holder = `holder-${process.pid}-${ownStart()}-${nonce}`;
  let watcher: FSWatcher | undefined;
  let wake: (() => void) | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      const tried = tryAcquire(sessionsDir, lockPath, holder, nonce, staleMs);
      if (tried === "acquired") break;
      if (typeof tried === "object") return tried;
      if (tried === "retry") continue;
      if (stopWaiting?.()) return { ok: false, reason: "not-needed", detail: "another holder did the work" };
      const wait = Math.min(5 + Math.random() * Math.min(2 ** attempt, 40), deadline - Date.now());
      if (wait <= 0) return { ok: false, reason: "timeout", detail: `${lockPath} held past the wait bound` };
      watcher ??= watchFor(sessionsDir, basename(lockPath), () => wake?.());
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    watcher?.close();
  }
  faultPoint("locked");
  const own = join(lockPath, holder);
  try {
    return { ok: true, value: await fn(fencedLock(own)) };
  } finally {
    release(lockPath, own);
  }
}

type Attempt = "acquired" | "busy" | "retry" | { ok: false; reason: "io"; detail: string };

/**
 * Where lock directories are made whole before they are renamed into place, and where taken-over ones go: one folder,
 * so what a process killed half-way leaves is in one place (swept by prune and the drainer), never among the records.
 */
export const LOCK_STAGING_DIR = ".lock-staging";

function stagingPath(sessionsDir: string, name: string): string {
  return join(sessionsDir, LOCK_STAGING_DIR, name);
}

/** One try: place a whole lock directory, or learn that a live holder has it, or clear a dead or stalled one. */
function tryAcquire(sessionsDir: string, lockPath: string, holder: string, nonce: string, staleMs: number): Attempt {
  // Held (the common case for a waiter): judge the holder without making anything.
  if (lstatSync(lockPath, { throwIfNoEntry: false }) !== undefined) {
    const judged = takeOverIfStale(sessionsDir, lockPath, nonce, staleMs);
    if (judged === "busy") return "busy";
  }
  const made = stagingPath(sessionsDir, `${basename(lockPath)}.${nonce}.new`);
  try {
    try {
      mkdirSync(made, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(dirname(made), { recursive: true, mode: 0o700 });
      mkdirSync(made, { mode: 0o700 });
    }
    mkdirSync(join(made, holder), { mode: 0o700 });
  } catch (error) {
    rmSync(made, { recursive: true, force: true });
    return { ok: false, reason: "io", detail: `${made}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  try {
    // Replaces nothing but an empty directory: one whose holder just released it (or an older build's empty lock).
    renameSync(made, lockPath);
    return "acquired";
  } catch (error) {
    rmSync(made, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") return { ok: false, reason: "io", detail: `${lockPath}: ${code ?? String(error)}` };
  }
  return takeOverIfStale(sessionsDir, lockPath, nonce, staleMs);
}

/**
 * The lock is there. Its holder is alive and made progress within `staleMs`: busy. Otherwise the whole directory is
 * renamed away (fencing the old holder off) and removed, and the caller tries again at once.
 */
function takeOverIfStale(sessionsDir: string, lockPath: string, nonce: string, staleMs: number): "busy" | "retry" {
  let names: string[];
  try {
    names = readdirSync(lockPath);
  } catch {
    return "retry"; // released meanwhile
  }
  const holders = names.filter((name) => HOLDER.test(name));
  // An empty directory is a lock being released (or an older build's): the next try replaces it.
  if (holders.length === 0) return names.length === 0 ? "retry" : "busy";
  const [, pid = "0", start = ""] = HOLDER.exec(holders[0] as string) ?? [];
  const changed = lstatSync(join(lockPath, holders[0] as string), { throwIfNoEntry: false })?.mtimeMs;
  if (changed === undefined) return "retry";
  const stale = !holderAlive(Number(pid), start) || Date.now() - changed > staleMs;
  if (!stale) return "busy";
  const grave = stagingPath(sessionsDir, `${basename(lockPath)}.${nonce}.stale`);
  try {
    renameSync(lockPath, grave);
  } catch {
    return "retry"; // released or taken over by someone else meanwhile
  }
  // Between the look and the rename another taker may have put a fresh lock in place: give it back if so.
  const moved = readdirSafe(grave);
  if (!moved.includes(holders[0] as string)) {
    try {
      renameSync(grave, lockPath);
      return "busy";
    } catch {
      // a third holder is in place by now; the one we displaced finds its writes fenced and retries
    }
  }
  rmSync(grave, { recursive: true, force: true });
  return "retry";
}

function readdirSafe(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Remove our holder directory, then the lock directory if it is still ours (empty): never another holder's. */
function release(lockPath: string, own: string): void {
  try {
    rmdirSync(own);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") return; // taken over: the lock directory is someone else's now
    // Something left in it (a temp file a failed write could not remove) goes with it.
    rmSync(own, { recursive: true, force: true });
  }
  try {
    rmdirSync(lockPath);
  } catch {
    // not empty (another holder's now) or already gone
  }
}

function fencedLock(own: string): RecordLock {
  return {
    write(path, text, maxBytes = LIMITS.recordBytes) {
      // The temp file is made in the holder's own directory: its creation, and its rename, fail (ENOENT) once the lock
      // was taken over, because `own` was moved away with the lock directory.
      return writeThroughTemp(path, join(own, `${basename(path)}.${uniqueSuffix()}.tmp`), text, {
        maxBytes,
        staged: () => {
          faultPoint("temp-written");
          faultPoint("before-rename");
        },
        renamed: () => faultPoint("written"),
        missing: `${path}: the lock was taken over`,
      });
    },
    remove(path) {
      const doomed = join(own, `${basename(path)}.${uniqueSuffix()}.gone`);
      try {
        renameSync(path, doomed);
      } catch {
        return false;
      }
      try {
        unlinkSync(doomed);
      } catch {
        // moved away with a lock taken over meanwhile: removed with it
      }
      return true;
    },
    held() {
      return lstatSync(own, { throwIfNoEntry: false })?.isDirectory() === true;
    },
  };
}

function watchFor(dir: string, name: string, onChange: () => void): FSWatcher | undefined {
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

/** Remove what killed lock holders left in the staging folder, older than `olderThanMs`; returns the names removed. */
export function sweepLockStaging(
  sessionsDir: string,
  { olderThanMs, dryRun = false, now = Date.now() }: { olderThanMs: number; dryRun?: boolean; now?: number },
): string[] {
  const dir = join(sessionsDir, LOCK_STAGING_DIR);
  const removed: string[] = [];
  for (const name of readdirSafe(dir)) {
    const path = join(dir, name);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined || now - stats.mtimeMs <= olderThanMs) continue;
    if (!dryRun) rmSync(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
