// Records already validated, remembered across runs in the state dir, so that listing hundreds of records (status
// every few seconds, the picker's first screen, next, focus) neither reads nor validates the files that did not change
// since the last listing: one `lstat` per record instead of open, read, parse and validate (docs/benchmarks.md).
//
// An entry is used only while the record file has the identity it had when its text was read: device, inode, size,
// and modification and change times in nanoseconds. Every writer of records replaces the file (a new inode); an
// in-place rewrite changes the change time, which no program can set. The change time is read from the kernel's
// coarse clock, though, so two writes within one tick of it can leave the same identity: git's "racy clean" problem.
// The same answer as git's: a file whose change time is within RACY_MS of the moment this cache was opened (before
// the listing read anything) is validated but not remembered, and is read again by the next listing; once older, it
// is remembered. Anything else (a new or changed file, an entry written by another build, a damaged cache) is
// validated as before. The cache is ours, in the private state dir, written atomically; it is best effort: when it
// cannot be read or written, only speed changes.
import { lstatSync, type BigIntStats } from "node:fs";
import { join } from "node:path";
import { isRecord } from "../core/json-value.ts";
import { mayBeLive } from "../core/liveness.ts";
import { linuxStartToken } from "../core/proc.ts";
import type { SessionRecord } from "../core/schema.ts";
import { readJsonFile, writeFileAtomic, type ValidatedRecords } from "./records.ts";
import { BUILD, VERSION } from "../core/version.ts";
import type { ListingWatch } from "./sessions-watch.ts";

export const RECORD_CACHE_FILE = "validated-records.json";
const CACHE_FORMAT = 3;
/** Entries are used only by the build that validated them: another build may validate or parse differently. */
const WRITER = `${VERSION}+${BUILD}`;
/** A cache larger than this is neither read nor written (about 60,000 typical records). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Files changed this recently are not remembered. Linux stamps times from a clock that lags by up to a scheduler tick
 * (1-10 ms); some filesystems keep whole seconds (2 s on FAT): the coarsest tick bounds the window.
 */
export const RACY_MS = 2000;

interface Entry {
  /** The file's identity (fileIdentity) when the record was read from it. */
  readonly file: string;
  readonly record: SessionRecord;
}

export interface RecordCache extends ValidatedRecords {
  /** Write the entries of this listing back when anything changed: new entries, or entries no longer listed. */
  save(listing: { readonly spools: readonly string[]; readonly invalid: readonly unknown[] }): void;
}

export function fileIdentity(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/**
 * `now` is read once, when the cache is opened: before the listing stats or reads any record. `watch`: a settled
 * watch on the sessions dir (sessions-watch.ts), which vouches for the files it saw no change to since they were read.
 *
 * The whole directory: every writer of records replaces a file by renaming another over it, or removes it, and each
 * of those changes the sessions dir's own modification and change times. A cache saved by a listing that found every
 * record valid and remembered, while the directory kept the identity it had when that listing began (and had kept it
 * for RACY_MS already, so no change within the clock's last tick can hide behind it), stands for the whole directory
 * for as long as the directory keeps that identity: a listing then reads no record and stats none (`whole()`). The
 * caller allows it (`wholeDir`) only while the drainer runs (it writes nearly every record, and keeps the cache whole
 * when the directory is quiet: hook/drainer-main.ts): a file changed in place by another program is then seen at the
 * next change of the directory. Otherwise every file is checked as before.
 */
export function openRecordCache(
  stateDir: string,
  {
    now = Date.now,
    watch,
    sessionsDir,
    wholeDir = false,
  }: {
    now?: () => number;
    watch?: ListingWatch;
    /** The sessions dir, for the whole-directory stamp the cache saves. */
    sessionsDir?: string;
    /** May a cache that stands for the whole directory be used without looking at any file (see above)? */
    wholeDir?: boolean;
  } = {},
): RecordCache {
  const path = join(stateDir, RECORD_CACHE_FILE);
  const opened = now();
  const racyFrom = BigInt(Math.floor(opened - RACY_MS)) * 1_000_000n;
  // Read on first use: a listing that needs none of it (live sessions from the sessions index) never parses it.
  let loadedOnce: Loaded | undefined;
  const entriesLoaded = () => (loadedOnce ??= loadEntries(path));
  const dirStats = sessionsDir === undefined ? undefined : lstatSync(sessionsDir, { bigint: true, throwIfNoEntry: false });
  const dir = dirStats?.isDirectory() ? fileIdentity(dirStats) : undefined;
  const current = new Map<string, Entry>();
  let changed = false;
  let racy = false;
  return {
    whole() {
      if (!wholeDir || dir === undefined) return undefined;
      const loaded = entriesLoaded();
      if (loaded.dir?.identity !== dir) return undefined;
      for (const [digest, entry] of loaded.entries) current.set(digest, entry);
      return { records: new Map([...loaded.entries].map(([digest, entry]) => [digest, entry.record])), spools: loaded.dir.spools };
    },
    lookup(digest, stats) {
      const entry = entriesLoaded().entries.get(digest);
      if (entry?.file !== fileIdentity(stats)) return undefined;
      current.set(digest, entry);
      watch?.verified(digest, entry.record, Number(stats.nlink));
      return entry.record;
    },
    trusted(digest) {
      const record = watch?.trusted(digest);
      // Its entry stays in the cache for the processes that check files (an entry of another identity only misses).
      const entry = record && entriesLoaded().entries.get(digest);
      if (entry) current.set(digest, entry);
      return record;
    },
    remember(digest, stats, record) {
      watch?.verified(digest, record, Number(stats.nlink));
      // Racy: a write within the same tick may follow unseen. Dropping a loaded entry is a change to save.
      if (stats.ctimeNs >= racyFrom || stats.mtimeNs >= racyFrom) {
        changed ||= entriesLoaded().entries.has(digest);
        racy = true;
      } else {
        current.set(digest, { file: fileIdentity(stats), record });
        changed = true;
      }
    },
    save({ spools, invalid }) {
      // The directory as it is now, if the cache can stand for all of it (see above).
      const after = sessionsDir === undefined ? undefined : lstatSync(sessionsDir, { bigint: true, throwIfNoEntry: false });
      const whole =
        dir !== undefined &&
        after !== undefined &&
        fileIdentity(after) === dir &&
        !racy &&
        invalid.length === 0 &&
        (dirStats as BigIntStats).mtimeNs < racyFrom &&
        (dirStats as BigIntStats).ctimeNs < racyFrom;
      const dirEntry = whole ? { identity: dir, spools: [...spools] } : undefined;
      if (!changed && current.size === entriesLoaded().entries.size && entriesLoaded().dir?.identity === dirEntry?.identity) return;
      if (dirEntry) writeSessionsIndex(stateDir, dirEntry, current, opened);
      // Too large a cache is refused by the write (only speed changes).
      const text = JSON.stringify({ format: CACHE_FORMAT, writer: WRITER, dir: dirEntry, entries: Object.fromEntries(current) });
      writeFileAtomic(path, text, { maxBytes: MAX_CACHE_BYTES });
    },
  };
}

/**
 * The entries last parsed, by the identity of the file they came from: a process that lists again (the keypress
 * server, src/server/) does not read and parse an unchanged cache each time. An entry is right for the record file
 * identity it names whichever version of the cache held it, so a stale memo can only miss, never mislead.
 */
let parsed: { readonly path: string; readonly identity: string; readonly entries: Loaded } | undefined;

interface Loaded {
  readonly entries: ReadonlyMap<string, Entry>;
  /** The sessions dir the entries stand for whole (its identity, and the spools in it), if they do. */
  readonly dir?: { readonly identity: string; readonly spools: readonly string[] };
}

function loadEntries(path: string): Loaded {
  const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  const identity = stats?.isFile() ? fileIdentity(stats) : undefined;
  if (parsed?.path === path && parsed.identity === identity) return parsed.entries;
  const entries = readEntries(path);
  parsed = identity === undefined ? undefined : { path, identity, entries };
  return entries;
}

function readEntries(path: string): Loaded {
  const entries = new Map<string, Entry>();
  const file = readJsonFile(path, MAX_CACHE_BYTES);
  if (file.kind !== "json" || !isRecord(file.value)) return { entries };
  const { format, writer, dir, entries: stored } = file.value;
  if (format !== CACHE_FORMAT || writer !== WRITER || !isRecord(stored)) return { entries };
  for (const [digest, entry] of Object.entries(stored)) {
    // The shape a listing relies on; the record's content was validated when it was remembered.
    if (!isRecord(entry) || typeof entry.file !== "string" || !isRecord(entry.record)) continue;
    entries.set(digest, { file: entry.file, record: entry.record as unknown as SessionRecord });
  }
  const whole =
    isRecord(dir) && typeof dir.identity === "string" && Array.isArray(dir.spools) && dir.spools.every((name) => typeof name === "string")
      ? { identity: dir.identity, spools: dir.spools as string[] }
      : undefined;
  return whole ? { entries, dir: whole } : { entries };
}

export const SESSIONS_INDEX_FILE = "sessions-index.json";

/** What a reader of live sessions needs of every record to tell which are live: the rest it reads from their files. */
export interface IndexRow {
  readonly digest: string;
  readonly pid: number | null;
  readonly process_start: string | null;
  readonly status: SessionRecord["status"];
  readonly updated_at: string;
}

/**
 * The small companion of a cache that stands for the whole sessions dir: one row (digest, PID, process start, status,
 * last update) per record that may be live, with the dir's identity. A record certainly dead when the index is written
 * (ended, or its process gone: mayBeLive) stays dead for as long as the directory keeps that identity (any write of a
 * record changes it), so it has no row: a reader that shows only live sessions (list, status, next) reads this instead
 * of the cache, and then only the files of the records it finds live (readSessionsIndex), whatever the number of
 * sessions kept.
 */
function writeSessionsIndex(
  stateDir: string,
  dir: { identity: string; spools: readonly string[] },
  entries: ReadonlyMap<string, Entry>,
  now: number,
): void {
  const startTokenOf = process.platform === "linux" ? (pid: number) => linuxStartToken(pid) : undefined;
  const rows = [...entries]
    .filter(([, { record }]) => mayBeLive(record, startTokenOf, now))
    .map(([digest, { record }]) => [digest, record.pid, record.process_start, record.status, record.updated_at]);
  writeFileAtomic(join(stateDir, SESSIONS_INDEX_FILE), JSON.stringify({ format: 2, writer: WRITER, dir, rows }), {
    maxBytes: MAX_CACHE_BYTES,
  });
}

/** The index rows, when the index stands for the sessions dir as it is now (its identity); undefined otherwise. */
export function readSessionsIndex(stateDir: string, sessionsDir: string): { rows: IndexRow[]; spools: readonly string[] } | undefined {
  const stats = lstatSync(sessionsDir, { bigint: true, throwIfNoEntry: false });
  if (!stats?.isDirectory()) return undefined;
  const file = readJsonFile(join(stateDir, SESSIONS_INDEX_FILE), MAX_CACHE_BYTES);
  if (file.kind !== "json" || !isRecord(file.value)) return undefined;
  const { format, writer, dir, rows } = file.value;
  if (format !== 2 || writer !== WRITER || !isRecord(dir) || dir.identity !== fileIdentity(stats) || !Array.isArray(rows)) return undefined;
  if (!Array.isArray(dir.spools) || !dir.spools.every((name) => typeof name === "string")) return undefined;
  const parsed: IndexRow[] = [];
  for (const row of rows) {
    if (!Array.isArray(row) || row.length !== 5) return undefined;
    const [digest, pid, start, status, updated] = row as unknown[];
    if (typeof digest !== "string" || (pid !== null && typeof pid !== "number") || (start !== null && typeof start !== "string"))
      return undefined;
    if (typeof status !== "string" || typeof updated !== "string") return undefined;
    parsed.push({ digest, pid, process_start: start, status: status as SessionRecord["status"], updated_at: updated });
  }
  return { rows: parsed, spools: dir.spools as string[] };
}
