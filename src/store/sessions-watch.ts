// For a process that lists the sessions dir again and again (the keypress server, src/server/): a record file whose
// contents were verified at a listing, and that has not changed since, is used without the `lstat` each listing
// otherwise pays per record (docs/server.md). "Not changed since" is what the kernel says: an inotify watch on the
// sessions dir reports every change to a name in it (a record replaced, written in place, its attributes changed,
// removed), and a change forgets the name's verified record.
//
// The watch is only believed once it has caught up: before a listing trusts it, `settle` creates a file of a new name
// in the dir and waits for that file's own event. inotify delivers one watch's events in the order the changes
// happened, so when the marker's event arrives, the event of every change made before the listing started has been
// seen. Anything the watch cannot vouch for (no marker event in time, the dir replaced, an error, a file with another
// link through which it could change unseen) falls back to the `lstat`s.
import { watch as watchDir, closeSync, constants, lstatSync, openSync, statfsSync, unlinkSync, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { withDeadline } from "../core/proc.ts";
import type { SessionRecord } from "../core/schema.ts";

/** The names of the settle markers (made and removed at once), which no reader takes for a record or a spool. */
const MARKER_PREFIX = ".settle-";

/** A settle marker's name: a change to the dir that says nothing about any session (`wait` ignores it). */
export const isSettleMarker = (name: string | null): boolean => name?.startsWith(MARKER_PREFIX) === true;
/** How long `settle` waits for its marker's event: beyond it, the listing checks every record as without a watch. */
const SETTLE_MS = 250;
/**
 * How long a verification is believed. Node's watch does not say when the kernel's event queue overflowed (events are
 * then lost), nor can a dir watch see a write through a hard link made after the verification: either shows at most
 * this late, when the record is checked again.
 */
const TRUST_MS = 5000;
/**
 * Fewer verified records than this, and a listing `lstat`s them instead of settling: a settle makes and removes a file
 * in a directory the drainer may be busy writing, and waits a turn of the event loop for its event, which on a loaded
 * machine (a fleet of agents) means waiting for the CPU again; a few dozen `lstat`s cost less.
 */
const SETTLE_FROM = 64;
/**
 * Filesystems whose every change is made by this machine's kernel, which inotify then reports: ext2-4, XFS, Btrfs,
 * tmpfs, overlayfs, ZFS, F2FS. On others (NFS, SMB, FUSE, 9p) another machine can change a file unseen. Linux only:
 * elsewhere `fs.watch` is not inotify and promises no order.
 */
const LOCAL_FILESYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010]);

/** The part of the watch a listing uses (record-cache.ts). */
export type ListingWatch = Pick<SessionsWatch, "trusted" | "verified">;

export interface SessionsWatch {
  /** The sessions dir watched. */
  readonly dir: string;
  /** Resolves true once every change made to the dir before the call has been seen; false: trust nothing now. */
  settle(): Promise<boolean>;
  /**
   * What one listing may take from the watch: all of it once settled; only `verified` (nothing trusted, no settle) while
   * fewer records are verified than make a settle worth its cost (SETTLE_FROM); undefined when not watching.
   */
  forListing(): Promise<ListingWatch | undefined>;
  /** The record verified for this digest's file, unchanged since. */
  trusted(digest: string): SessionRecord | undefined;
  /** A listing read or confirmed this record from its file (`links`: the file's link count) after the watch began. */
  verified(digest: string, record: SessionRecord, links: number): void;
  close(): void;
}

/** Keep a watch on `sessionsDir` for this process's listings until `close`. */
export function watchSessions(
  sessionsDir: string,
  { settleMs = SETTLE_MS, trustMs = TRUST_MS, settleFrom = SETTLE_FROM }: { settleMs?: number; trustMs?: number; settleFrom?: number } = {},
): SessionsWatch {
  let watcher: FSWatcher | undefined;
  let watched: string | undefined; // the identity of the dir being watched
  const verified = new Map<string, { readonly record: SessionRecord; readonly at: number }>(); // by file name
  const markers = new Map<string, (seen: boolean) => void>();
  let count = 0;

  const stop = () => {
    watcher?.close();
    watcher = undefined;
    watched = undefined;
    verified.clear();
    for (const resolve of markers.values()) resolve(false);
  };

  /** Watch the directory now at the path (a new one: from scratch). False when there is none to watch. */
  const ensure = (): boolean => {
    const stats = lstatSync(sessionsDir, { bigint: true, throwIfNoEntry: false });
    const identity = stats?.isDirectory() ? `${stats.dev}:${stats.ino}` : undefined;
    if (identity !== watched) stop();
    if (identity === undefined) return false;
    if (watcher) return true;
    try {
      if (process.platform !== "linux" || !LOCAL_FILESYSTEMS.has(statfsSync(sessionsDir).type)) return false;
      watcher = watchDir(sessionsDir, { persistent: false }, (_event, name) => {
        if (name === null) return verified.clear();
        markers.get(name)?.(true);
        verified.delete(name);
      });
    } catch {
      return false;
    }
    watcher.on("error", stop);
    watched = identity;
    return true;
  };

  const settle = async (): Promise<boolean> => {
    if (!ensure()) return false;
    const name = `${MARKER_PREFIX}${process.pid}-${++count}`;
    const seen = new Promise<boolean>((resolve) => markers.set(name, resolve));
    // Made and removed at once: its creation's event is the one waited for, and a stopped process leaves none.
    if (!createAndRemove(join(sessionsDir, name))) markers.get(name)?.(false);
    // The marker's event is queued by the time it is made: a process descheduled past the bound (a loaded machine)
    // still collects it before the bound is declared (withDeadline), instead of dropping a watch that kept up.
    const settled = (await withDeadline(seen, settleMs)) === true;
    markers.delete(name);
    // No event for a marker: a watch that reports nothing (a dir removed and made again, even with the same inode).
    if (!settled) stop();
    return settled && watcher !== undefined;
  };
  const trusted = (digest: string): SessionRecord | undefined => {
    const entry = verified.get(`${digest}.json`);
    return entry && performance.now() - entry.at <= trustMs ? entry.record : undefined;
  };
  const markVerified = (digest: string, record: SessionRecord, links: number): void => {
    // Another link to the file is a path through which it can change without an event in this dir.
    if (watcher && links === 1) verified.set(`${digest}.json`, { record, at: performance.now() });
  };

  return {
    dir: sessionsDir,
    settle,
    async forListing() {
      if (!ensure()) return undefined;
      // A record marked verified was read after the listing began; a change made before that read either came before
      // it (the read saw it) or has an event still to come, which forgets the mark: so marking needs no settle.
      if (verified.size < settleFrom) return { trusted: () => undefined, verified: markVerified };
      return (await settle()) ? { trusted, verified: markVerified } : undefined;
    },
    trusted,
    verified: markVerified,
    close: stop,
  };
}

/** Create `path` (never through a symlink, never an existing file) and remove it; false when it could not. */
export function createAndRemove(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}
