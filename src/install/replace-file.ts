// Replacing a user's config file only when it still holds what the plan was computed from, while the user (or the
// harness itself) may be editing it at the same moment. The new text is staged in a temp file first (written, owner and
// mode set, fsync'ed: the slow part); only then is the file compared once more, and renamed over at once. A rename
// cannot be made conditional, so what the rename replaced is checked afterwards through a hard link to the old file:
// an edit written into it in place during the write is put back, and the step fails instead of reporting success.
//
// What remains: a save by rename in the microseconds between the last comparison and our rename is reported, but its
// text is replaced (Linux's renameat2 RENAME_EXCHANGE could close that; Node does not expose it); and an editor that
// opened the file before our rename and writes into it more than SETTLE_MS after it writes into a file no longer
// there. docs/reliability.md, "Installer racing edits", measures both.
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { uniqueSuffix } from "../store/records.ts";
import { watchDir, type DirWatch } from "./dir-watch.ts";

export type ReplaceResult = { ok: true } | { ok: false; reason: "changed" | "owner" | "io"; detail: string };

/** Points of a replacement where a racing edit can land, for tests to put one there. */
export type ReplacePoint = "staged" | "compared" | "renamed";

export interface ReplaceOptions {
  readonly maxBytes: number;
  /** Test seam: called at each point, synchronously. */
  readonly probe?: (point: ReplacePoint) => void;
}

/** How long after the rename a write into the replaced file is still caught (see replaceExisting). */
const SETTLE_MS = 25;

const changedSince = (path: string, what: string) => `${path} changed since the plan was made; ${what} (run the command again)`;
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** What the system's error codes a config write meets mean, in words. */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENOENT: "no such file or directory",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "is a directory",
  ELOOP: "its symbolic links lead in a loop",
  EEXIST: "something is already there",
};

/** `path: permission denied (EACCES)`: the error's words, and its code for a search. */
export function ioDetail(path: string, error: unknown): string {
  const code = errorCode(error);
  return `${path}: ${ERRNO_WORDS[code] ? `${ERRNO_WORDS[code]} (${code})` : code}`;
}

/** The whole content of an open file, or undefined past `maxBytes`. Reads from offset 0 whatever the fd's position. */
function readAll(fd: number, maxBytes: number): string | undefined {
  const size = fstatSync(fd).size;
  if (size > maxBytes) return undefined;
  const buffer = Buffer.alloc(size + 1);
  let length = 0;
  while (length < buffer.length) {
    const read = readSync(fd, buffer, length, buffer.length - length, length);
    if (read === 0) break;
    length += read;
  }
  return length > size ? undefined : buffer.toString("utf8", 0, length);
}

function sameFile(a: Stats | undefined, b: Stats): boolean {
  return a !== undefined && a.ino === b.ino && a.dev === b.dev;
}

interface Staged {
  readonly temp: string;
  readonly stats: Stats;
}

/**
 * Write `text` to a new temp file beside `target` with the given owner and mode, and fsync it. The owner is kept even
 * when it is not us (root installing for another user): the harness running as that user must still read the file.
 */
function stage(
  target: string,
  text: string,
  { mode, owner }: { mode: number; owner: Owner | undefined },
): ({ ok: true } & Staged) | Extract<ReplaceResult, { ok: false }> {
  sweepLeftovers(target);
  const temp = `${target}.${process.pid}.${uniqueSuffix()}.tmp`;
  let fd: number | undefined;
  let step = "write";
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    const bytes = Buffer.from(text, "utf8");
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
    const own = fstatSync(fd);
    step = "owner";
    if (owner !== undefined && (own.uid !== owner.uid || own.gid !== owner.gid)) fchownSync(fd, owner.uid, owner.gid);
    step = "write";
    // After chown (which clears set-id bits), and explicitly: open's mode went through the umask.
    fchmodSync(fd, mode);
    fsyncSync(fd);
    const stats = fstatSync(fd);
    closeSync(fd);
    return { ok: true, temp, stats };
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    removeQuietly(temp);
    if (step === "owner")
      return {
        ok: false,
        reason: "owner",
        detail: `${target}: cannot give it the owner ${owner?.uid}:${owner?.gid} (${errorCode(error)}); nothing written`,
      };
    return { ok: false, reason: "io", detail: ioDetail(target, error) };
  }
}

/** Our temp names beside a config file: `<name>.<pid>.<8 hex>[.before|.mark|.removed].tmp` (also dir-watch.ts's markers). */
const LEFTOVER = /^\.(\d+)\.[0-9a-f]{8}(\.before|\.mark|\.removed)?\.tmp$/;

/** Remove what a writer of `target` killed mid-write left beside it (its PID is gone), so kills do not pile up files. */
function sweepLeftovers(target: string): void {
  const name = basename(target);
  let entries: string[];
  try {
    entries = readdirSync(dirname(target));
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = entry.startsWith(name) ? LEFTOVER.exec(entry.slice(name.length))?.[1] : undefined;
    if (pid !== undefined && Number(pid) !== process.pid && !isAlive(Number(pid))) removeQuietly(join(dirname(target), entry));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // never created, or already gone
  }
}

/** Replace the existing file at `target` (symlinks already resolved), provided it still holds `before`. */
export async function replaceExisting(target: string, before: string, after: string, options: ReplaceOptions): Promise<ReplaceResult> {
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, reason: "io", detail: ioDetail(target, error) };
  }
  let witness: string | undefined;
  let watcher: DirWatch | undefined;
  let temp: string | undefined;
  try {
    const planned = fstatSync(fd);
    if (!planned.isFile()) return { ok: false, reason: "io", detail: `${target} is not a regular file` };
    if (readAll(fd, options.maxBytes) !== before) return { ok: false, reason: "changed", detail: changedSince(target, "nothing written") };
    const staged = stage(target, after, { mode: planned.mode & 0o7777, owner: { uid: planned.uid, gid: planned.gid } });
    if (!staged.ok) return staged;
    temp = staged.temp;
    // A second name for the file we plan from, so that it can be put back if an edit reaches it during the rename.
    witness = `${target}.${process.pid}.${uniqueSuffix()}.before.tmp`;
    try {
      linkSync(target, witness);
    } catch {
      witness = undefined; // no hard links here (some FUSE file systems): the edit is still detected, not put back
    }
    watcher = await watchDir(dirname(target), basename(target));
    options.probe?.("staged");
    // The last comparison, immediately before the rename: the file still holds `before`, and is still the one at the path.
    if (readAll(fd, options.maxBytes) !== before || !sameFile(lstatSync(target, { throwIfNoEntry: false }), planned)) {
      return { ok: false, reason: "changed", detail: changedSince(target, "nothing written") };
    }
    options.probe?.("compared");
    renameSync(staged.temp, target);
    temp = undefined;
    options.probe?.("renamed");
    // Anything that named the file between the arming of the watch and our rename: a save we may have replaced.
    const touched = watcher === undefined ? undefined : await watcher.touchedBefore(basename(staged.temp), basename(target));
    // An editor that opened the file before the rename may write into it after: that edit is not in the file we just
    // put in place. Give such a write a moment to land (an editor preempted inside its open() was seen to need more
    // than a millisecond under load), then put the edited file back (when ours is still at the path) and fail the step.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    if (readAll(fd, options.maxBytes) !== before) {
      const putBack =
        witness !== undefined && sameFile(lstatSync(target, { throwIfNoEntry: false }), staged.stats) && tryRename(witness, target);
      if (putBack) witness = undefined;
      return {
        ok: false,
        reason: "changed",
        detail: `${target} was edited while it was being written; ${putBack ? "that edit was put back and nothing of ours is in the file" : "that edit may be lost: check the file"} (run the command again)`,
      };
    }
    if (touched === true)
      return {
        ok: false,
        reason: "changed",
        detail: `${target} was saved by another program at the moment tongs-agents wrote it; that save may have been replaced: check the file (run the command again)`,
      };
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: "io", detail: ioDetail(target, error) };
  } finally {
    watcher?.close();
    closeSync(fd);
    if (temp !== undefined) removeQuietly(temp);
    if (witness !== undefined) removeQuietly(witness);
  }
}

function tryRename(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch {
    return false;
  }
}

/**
 * Create `path` with `after`, provided nothing is there yet. A hard link from the staged temp file never replaces a
 * file someone created meanwhile (link fails with EEXIST), unlike a rename. New files and directories get the owner of
 * the directory they are made in (root installing into another user's home).
 */
export function createNew(path: string, after: string, options: ReplaceOptions): ReplaceResult {
  const dir = dirname(path);
  const made = makeDirs(dir);
  if (!made.ok) return made;
  let owner: Owner | undefined;
  try {
    owner = foreignOwner(dir);
  } catch (error) {
    return { ok: false, reason: "io", detail: ioDetail(dir, error) };
  }
  const staged = stage(path, after, { mode: 0o600, owner });
  if (!staged.ok) return staged;
  try {
    options.probe?.("staged");
    try {
      linkSync(staged.temp, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST")
        return {
          ok: false,
          reason: "changed",
          detail: `${path} was created since the plan was made; nothing written (run the command again)`,
        };
      // No hard links on this file system: the nearest thing, a check just before the rename.
      if (lstatSync(path, { throwIfNoEntry: false }) !== undefined)
        return {
          ok: false,
          reason: "changed",
          detail: `${path} was created since the plan was made; nothing written (run the command again)`,
        };
      renameSync(staged.temp, path);
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: "io", detail: ioDetail(path, error) };
  } finally {
    removeQuietly(staged.temp);
  }
}

interface Owner {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The owner to give what we create in `dir` when `dir` belongs to another user (root installing into that user's home),
 * so that their harness can read it; undefined when it is ours (what the system gives a new file is then kept).
 */
function foreignOwner(dir: string): Owner | undefined {
  const parent = statSync(dir);
  const uid = process.getuid?.();
  return uid === undefined || parent.uid === uid ? undefined : { uid: parent.uid, gid: parent.gid };
}

/** mkdir -p with mode 0700; each directory made gets the owner of the directory it was made in, when that is not us. */
function makeDirs(dir: string): ReplaceResult {
  let made: string | undefined;
  try {
    const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (first === undefined) return { ok: true };
    const owner = foreignOwner(dirname(first));
    if (owner === undefined) return { ok: true };
    const parts = relative(dirname(first), dir).split(sep);
    for (let index = 1; index <= parts.length; index++) {
      made = join(dirname(first), ...parts.slice(0, index));
      const fd = openSync(made, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      try {
        fchownSync(fd, owner.uid, owner.gid);
      } finally {
        closeSync(fd);
      }
    }
    return { ok: true };
  } catch (error) {
    const link = made === undefined ? danglingLinkIn(dir) : undefined;
    if (link)
      return {
        ok: false,
        reason: "io",
        detail: `${link.path} is a symbolic link to ${link.target}, which does not exist; nothing written: create it (or put your dotfiles in place), or remove the link, then run the command again`,
      };
    return { ok: false, reason: made === undefined ? "io" : "owner", detail: ioDetail(made ?? dir, error) };
  }
}

/** The first directory on the way to `dir` that is a symbolic link to nothing (a dotfile manager's, made early). */
function danglingLinkIn(dir: string): { path: string; target: string } | undefined {
  for (let path = dir; path !== dirname(path); path = dirname(path)) {
    const link = lstatSync(path, { throwIfNoEntry: false });
    if (link?.isSymbolicLink() && statSync(path, { throwIfNoEntry: false }) === undefined) return { path, target: readlinkSync(path) };
  }
  return undefined;
}

/**
 * Remove `path`, provided it still holds `before`. The file is first renamed aside, which takes whatever is at the path
 * at that instant; when that is not the file compared (an edit landed), it is linked back.
 */
export function removeIfUnchanged(path: string, before: string, maxBytes: number): ReplaceResult {
  let named: Stats;
  let fd: number;
  try {
    // The name first, then what it leads to (callers resolve links: a symlink given here is removed, not its target).
    named = lstatSync(path);
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, reason: "io", detail: ioDetail(path, error) };
  }
  const aside = `${path}.${process.pid}.${uniqueSuffix()}.removed.tmp`;
  try {
    if (readAll(fd, maxBytes) !== before) return { ok: false, reason: "changed", detail: changedSince(path, "nothing removed") };
    renameSync(path, aside);
    if (sameFile(lstatSync(aside), named) && sameFile(statSync(aside), fstatSync(fd)) && readAll(fd, maxBytes) === before) {
      unlinkSync(aside);
      return { ok: true };
    }
    // Someone saved in between: give their file back, unless yet another one has appeared at the path since.
    try {
      linkSync(aside, path);
    } catch {
      // a newer file is at the path: it wins
    }
    removeQuietly(aside);
    return { ok: false, reason: "changed", detail: changedSince(path, "nothing removed") };
  } catch (error) {
    return { ok: false, reason: "io", detail: ioDetail(path, error) };
  } finally {
    closeSync(fd);
  }
}
