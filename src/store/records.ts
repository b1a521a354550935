// One small JSON file per session under the sessions dir, named by the identity digest only. Reads never follow
// symlinks; writes go to a private temp file, are flushed and renamed, so a reader sees the whole old or the whole new
// record. Each record has its own lock with a bounded wait.
//
// File I/O here is synchronous on purpose: these are a few small files in a private local directory, and under CPU
// contention (dozens of hooks at once) every asynchronous hop is another wait to be scheduled, while the record lock
// is held. Only waiting for a lock is asynchronous and bounded.
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from "node:fs";
import { join } from "node:path";
import { LIMITS, byteLength } from "../core/bounds.ts";
import { sanitizeLaunch } from "../core/launch.ts";
import { fitted } from "./fit.ts";
import {
  InstancePointerSchema,
  SessionRecordSchema,
  TombstoneSchema,
  describeIssue,
  type SessionRecord,
  type Tombstone,
} from "../core/schema.ts";

export const RECORD_FILE = /^([0-9a-f]{64})\.json$/;
const SPOOL_DIR = /^([0-9a-f]{64})\.spool$/;

export function recordPath(sessionsDir: string, digest: string): string {
  return join(sessionsDir, `${digest}.json`);
}

/** Instance pointers live beside records with their own prefix, so a record listing never sees them. */
export function instancePointerPath(sessionsDir: string, instanceDigest: string): string {
  return join(sessionsDir, `instance-${instanceDigest}.json`);
}

export type FileRead =
  | { kind: "absent" }
  | {
      kind: "invalid";
      reason: "symlink" | "not-a-file" | "too-large" | "not-json" | "schema" | "future-timestamp" | "newer-schema" | "io";
      detail: string;
    }
  | { kind: "json"; value: unknown };

let readBuffer: Buffer = Buffer.allocUnsafe(LIMITS.recordBytes + 1);

function grown(buffer: Buffer, size: number, keep: number): Buffer {
  const larger = Buffer.allocUnsafe(size);
  buffer.copy(larger, 0, 0, keep);
  return larger;
}

export type TextRead = Exclude<FileRead, { kind: "json" }> | { kind: "text"; text: string };

/** Read a small text file without following a symlink at its name and without blocking on a FIFO planted there. */
export function readTextFile(path: string, maxBytes: number = LIMITS.recordBytes): TextRead {
  return readFileText(path, maxBytes, false);
}

/**
 * `readTextFile`, with the file's identity as the open file stood before it was read (the validated-record cache keys
 * on it). Only a listing asks: nanosecond stats cost more to build.
 */
function readFileText(path: string, maxBytes: number, identify: boolean): TextRead & { stats?: BigIntStats } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "absent" };
    if (code === "ELOOP") return { kind: "invalid", reason: "symlink", detail: `${path} is a symlink` };
    return { kind: "invalid", reason: "io", detail: `${path}: ${code ?? String(error)}` };
  }
  try {
    const stats = identify ? fstatSync(fd, { bigint: true }) : fstatSync(fd);
    const size = Number(stats.size);
    if (!stats.isFile()) return { kind: "invalid", reason: "not-a-file", detail: `${path} is not a regular file` };
    if (size > maxBytes) return { kind: "invalid", reason: "too-large", detail: `${path} is ${size} bytes` };
    // One buffer for every read (reads are synchronous): listing thousands of records allocates nothing per file. It
    // grows to the largest file read, not to the bound: a buffer of a large bound (the record cache's) would be
    // external memory that makes V8 collect garbage early.
    let capacity = Math.min(maxBytes, size) + 1;
    let length = 0;
    for (;;) {
      if (readBuffer.length < capacity) readBuffer = grown(readBuffer, capacity, length);
      const bytesRead = readSync(fd, readBuffer, length, capacity - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) return { kind: "invalid", reason: "too-large", detail: `${path} grew past ${maxBytes} bytes` };
      // One byte past the size fstat gave: the file grew since; read on, up to the bound.
      if (length === capacity) capacity = maxBytes + 1;
    }
    const text = readBuffer.toString("utf8", 0, length);
    return identify ? { kind: "text", text, stats: stats as BigIntStats } : { kind: "text", text };
  } catch (error) {
    return { kind: "invalid", reason: "io", detail: `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  } finally {
    closeSync(fd);
  }
}

/** A small JSON file, read as `readTextFile` does. */
export function readJsonFile(path: string, maxBytes: number = LIMITS.recordBytes): FileRead {
  const file = readTextFile(path, maxBytes);
  return file.kind === "text" ? parseJsonText(file.text, path) : file;
}

function parseJsonText(text: string, path: string): FileRead {
  try {
    return { kind: "json", value: JSON.parse(text) };
  } catch {
    return { kind: "invalid", reason: "not-json", detail: `${path} is not JSON` };
  }
}

export type RecordRead =
  | { kind: "absent" }
  | { kind: "invalid"; reason: Extract<FileRead, { kind: "invalid" }>["reason"]; detail: string }
  | { kind: "record"; record: SessionRecord }
  | { kind: "tombstone"; tombstone: Tombstone };

/** Validate a parsed record file: schema, timestamps not too far ahead, defaults for older writers, launch sanitized. */
export function parseRecord(value: unknown, now: number = Date.now()): RecordRead {
  if (typeof value === "object" && value !== null) {
    const version = (value as Record<string, unknown>).schema_version;
    if (typeof version === "number" && version > 1)
      return { kind: "invalid", reason: "newer-schema", detail: `schema_version ${version} is newer than this reader` };
    if ((value as Record<string, unknown>).tombstone === true) {
      const tombstone = TombstoneSchema.safeParse(value);
      return tombstone.success
        ? { kind: "tombstone", tombstone: tombstone.data }
        : { kind: "invalid", reason: "schema", detail: describeIssue(tombstone.error) };
    }
  }
  const launch =
    typeof value === "object" && value !== null && "launch" in value ? sanitizeLaunch((value as { launch: unknown }).launch) : undefined;
  const withoutLaunch = typeof value === "object" && value !== null ? { ...(value as object), launch: undefined } : value;
  const parsed = SessionRecordSchema.safeParse(withoutLaunch);
  if (!parsed.success) return { kind: "invalid", reason: "schema", detail: describeIssue(parsed.error) };
  const data = parsed.data;
  const record: SessionRecord = {
    ...data,
    created_at: data.created_at ?? data.updated_at,
    status_changed_at: data.status_changed_at ?? data.updated_at,
  };
  if (launch) record.launch = launch;
  else delete record.launch;
  return checkTimestamps(record, now);
}

/** Every timestamp of a record is a date, and none is more than five minutes ahead of `now`. */
function checkTimestamps(record: SessionRecord, now: number): RecordRead {
  const latest = now + LIMITS.futureSkewMs;
  for (const stamp of [record.created_at, record.updated_at, record.status_changed_at]) {
    const time = Date.parse(stamp);
    if (Number.isNaN(time)) return { kind: "invalid", reason: "schema", detail: `timestamp ${stamp} is not a date` };
    if (time > latest) return { kind: "invalid", reason: "future-timestamp", detail: `timestamp ${stamp} is more than five minutes ahead` };
  }
  return { kind: "record", record };
}

export function readRecord(path: string, now?: number): RecordRead {
  return parseRecordFile(readJsonFile(path), now);
}

function parseRecordFile(file: FileRead, now?: number): RecordRead {
  return file.kind === "json" ? parseRecord(file.value, now) : file;
}

export type WriteResult = { ok: true } | { ok: false; reason: "too-large" | "io"; detail: string };

/**
 * Write JSON atomically: private temp file in the same directory, every byte written and the file closed, then
 * renamed over the target, so a reader sees the whole old or the whole new content. No fsync: a record describes live
 * processes, and after a power loss none of them is alive (the record is stale either way); a torn file left by a
 * crash is refused by the reader and replaced by the next event. fdatasync cost a third of the hook's own time.
 */
export function writeJsonAtomic(path: string, value: unknown, maxBytes: number = LIMITS.recordBytes): WriteResult {
  return writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, { maxBytes });
}

/**
 * The same atomic write for any text. A config file keeps its permission bits through `mode`, and asks for `sync`:
 * unlike a session record, a user's settings must survive a power loss.
 */
export function writeFileAtomic(
  path: string,
  text: string,
  { maxBytes = LIMITS.recordBytes, mode = 0o600, sync = false }: { maxBytes?: number; mode?: number; sync?: boolean } = {},
): WriteResult {
  return writeThroughTemp(path, `${path}.${process.pid}.${uniqueSuffix()}.tmp`, text, { maxBytes, mode, sync });
}

/**
 * The atomic write itself, for this module and the record lock's fenced write (record-lock.ts), which differ only in
 * where the temp file is made: `text` into a new file at `temp` (O_EXCL|O_NOFOLLOW, never through a link), every byte
 * written and the file closed, then renamed over `path`. On failure the temp file is removed and `path` is as it was.
 * `staged` runs between the close and the rename, `renamed` right after the rename (the fenced write's fault points);
 * `missing` is the detail for ENOENT (the fenced write's temp dir moved away: its lock was taken over).
 */
export function writeThroughTemp(
  path: string,
  temp: string,
  text: string,
  {
    maxBytes = LIMITS.recordBytes,
    mode = 0o600,
    sync = false,
    staged,
    renamed,
    missing,
  }: { maxBytes?: number; mode?: number; sync?: boolean; staged?: () => void; renamed?: () => void; missing?: string } = {},
): WriteResult {
  if (byteLength(text) > maxBytes) return { ok: false, reason: "too-large", detail: `record would be ${byteLength(text)} bytes` };
  let fd: number | undefined;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    const bytes = Buffer.from(text, "utf8");
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
    if (sync) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    staged?.();
    renameSync(temp, path);
    renamed?.();
    return { ok: true };
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // never created, renamed, or moved away with a taken-over lock
    }
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: "io", detail: code === "ENOENT" && missing !== undefined ? missing : `${path}: ${code ?? String(error)}` };
  }
}

export function writeRecord(sessionsDir: string, digest: string, record: SessionRecord | Tombstone): WriteResult {
  return writeJsonAtomic(recordPath(sessionsDir, digest), "tombstone" in record ? record : fitted(record));
}

/** Unique enough for temp names created with O_EXCL (a clash fails the write, never overwrites): no crypto needed. */
export function uniqueSuffix(): string {
  return Math.floor(Math.random() * 2 ** 32)
    .toString(16)
    .padStart(8, "0");
}

export interface ListedRecord {
  readonly digest: string;
  readonly record: SessionRecord;
}

export interface RecordListing {
  readonly records: ListedRecord[];
  /** Digests that have a spool directory (events may be queued for them, with or without a record yet). */
  readonly spools: string[];
  /** Files that could not be read as records, with the reason: shown by `list --all --json` and `doctor`. */
  readonly invalid: { digest: string; reason: string; detail: string }[];
}

/** Records validated before, by the identity of the file they were validated from (record-cache.ts). */
export interface ValidatedRecords {
  /** The record validated from a file of exactly these stats (`lstat`, nanosecond times), if any. */
  lookup(digest: string, stats: BigIntStats): SessionRecord | undefined;
  /** A valid record and the stats of its file taken before it was read. */
  remember(digest: string, stats: BigIntStats, record: SessionRecord): void;
  /** The record of a file known unchanged without looking at it (a settled watch: sessions-watch.ts). */
  trusted?(digest: string): SessionRecord | undefined;
  /** Every record and spool of the directory, when known unchanged as a whole (record-cache.ts): nothing is read. */
  whole?(): { records: ReadonlyMap<string, SessionRecord>; spools: readonly string[] } | undefined;
}

/**
 * Every record in the sessions dir (tombstones skipped). With `validated`, a file that is the very file validated
 * before (same identity) is neither read nor validated again (its timestamps are still checked against `now`); every
 * other file is, and a valid one is remembered.
 */
export function listRecords(sessionsDir: string, now: number = Date.now(), validated?: ValidatedRecords): RecordListing {
  const whole = validated?.whole?.();
  if (whole) {
    const listing: RecordListing = { records: [], invalid: [], spools: [...whole.spools] };
    for (const [digest, known] of whole.records) {
      const read = checkTimestamps(known, now);
      if (read.kind === "record") listing.records.push({ digest, record: read.record });
      else if (read.kind === "invalid") listing.invalid.push({ digest, reason: read.reason, detail: read.detail });
    }
    return listing;
  }
  let names: string[];
  try {
    names = readdirSync(sessionsDir);
  } catch {
    names = [];
  }
  const records: ListedRecord[] = [];
  const invalid: RecordListing["invalid"] = [];
  // recordPath's join, once: normalizing the same directory for every record was a tenth of a listing.
  const base = `${join(sessionsDir, ".")}/`;
  const spools: string[] = [];
  for (const name of names) {
    const digest = RECORD_FILE.exec(name)?.[1];
    if (digest === undefined) {
      const spooled = SPOOL_DIR.exec(name)?.[1];
      if (spooled !== undefined) spools.push(spooled);
      continue;
    }
    const path = base + name;
    if (validated) {
      // One lstat instead of open, fstat, read and close: a symlink, a directory or a vanished file is no cached
      // record's file, and is read below to report it as before.
      let known = validated.trusted?.(digest);
      if (!known) {
        const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
        known = stats?.isFile() ? validated.lookup(digest, stats) : undefined;
      }
      if (known) {
        const read = checkTimestamps(known, now);
        if (read.kind === "record") records.push({ digest, record: read.record });
        else if (read.kind === "invalid") invalid.push({ digest, reason: read.reason, detail: read.detail });
        continue;
      }
    }
    const file = readFileText(path, LIMITS.recordBytes, validated !== undefined);
    if (file.kind !== "text") {
      if (file.kind === "invalid") invalid.push({ digest, reason: file.reason, detail: file.detail });
      continue;
    }
    const read = parseRecordFile(parseJsonText(file.text, path), now);
    if (read.kind === "record") {
      records.push({ digest, record: read.record });
      if (file.stats) validated?.remember(digest, file.stats, read.record);
    } else if (read.kind === "invalid") invalid.push({ digest, reason: read.reason, detail: read.detail });
  }
  return { records, invalid, spools };
}

export function readInstancePointer(path: string): string | undefined {
  const file = readJsonFile(path, 4096);
  if (file.kind !== "json") return undefined;
  const parsed = InstancePointerSchema.safeParse(file.value);
  return parsed.success ? parsed.data.canonical_id : undefined;
}
