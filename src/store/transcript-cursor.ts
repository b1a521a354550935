// A bounded, incremental reader of a JSONL file a harness appends to (its transcript): each call reads only the bytes
// added since the last call, at most `maxBytes`, and hands back complete lines. Where it stopped is kept in a small
// cursor file in the state dir, so a line is read once across processes and restarts; the cursor also remembers the
// file's identity and a digest of the bytes just before its offset, so a file truncated, replaced or rewritten in
// place is noticed and read afresh from its recent end instead of from a wrong offset. No daemon: readers call it.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { lazySchema } from "../core/lazy-schema.ts";
import { UsageFactsSchema } from "../core/usage-facts.ts";
import { ensurePrivateDir } from "./paths.ts";
import { readJsonFile, writeJsonAtomic } from "./records.ts";

/** How many bytes before the offset the digest covers: enough to tell one file's history from another's. */
const TAIL_BYTES = 256;
/** Bytes read per call and file unless the caller says otherwise: a status line every few seconds stays cheap. */
export const DEFAULT_READ_BYTES = 512 * 1024;

const CursorSchema = lazySchema(() =>
  z.strictObject({
    schema_version: z.literal(1),
    path: z.string(),
    dev: z.number(),
    ino: z.number(),
    offset: z.int().check(z.gte(0)),
    /** sha256 (hex) of the up to TAIL_BYTES bytes before `offset`. */
    tail: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    /** The reader stopped inside a line longer than it reads per call: skip to the next line end. */
    skipping: z.boolean(),
    /** Every line since the file's start was read (the first read began at its start, each later one went on from there). */
    from_start: z.optional(z.boolean()),
    /**
     * What the lines before `offset` stated beside turn outcomes (core/usage-facts.ts): kept with the offset in one
     * atomic write, so each line counts once, whoever reads it and however often.
     */
    facts: z.optional(UsageFactsSchema),
  }),
);
/** A cursor with its facts stays well under this. */
const CURSOR_BYTES = 16 * 1024;
export type TranscriptCursor = z.infer<typeof CursorSchema>;

export interface TranscriptLine {
  readonly text: string;
  /** Byte offset just past the line's newline. */
  readonly end: number;
}

export type TranscriptRead =
  | {
      ok: true;
      lines: TranscriptLine[];
      cursor: TranscriptCursor;
      restarted: boolean;
      /** Every line from the file's start has been read, by this call or earlier ones (sums over its lines are whole). */
      fromStart: boolean;
    }
  | { ok: false; reason: "missing" | "not-a-file" | "io"; detail: string };

/**
 * Read the complete lines added to `path` since `previous`. Without a usable cursor (first call, file replaced,
 * truncated or rewritten) it starts `maxBytes` before the end, at a line boundary, so only recent lines are read.
 */
export function readNewLines(
  path: string,
  previous: TranscriptCursor | undefined,
  { maxBytes = DEFAULT_READ_BYTES }: { maxBytes?: number } = {},
): TranscriptRead {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a FIFO put where the transcript should be fails the regular-file check instead of blocking.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, reason: "not-a-file", detail: `${path} is not a regular file` };
    const size = stats.size;
    const continues =
      previous !== undefined &&
      previous.path === path &&
      previous.dev === stats.dev &&
      previous.ino === stats.ino &&
      previous.offset <= size &&
      tailDigest(fd, previous.offset) === previous.tail;
    let start = continues ? previous.offset : Math.max(0, size - maxBytes);
    const fromStart = continues ? previous.from_start === true : start === 0;
    // Starting anywhere but a line boundary, the first (partial) line is skipped.
    let skipping = continues ? previous.skipping : start > 0 && readBytes(fd, start - 1, 1)[0] !== 0x0a;
    const chunk = readBytes(fd, start, Math.min(maxBytes, size - start));
    const lines: TranscriptLine[] = [];
    let lineStart = 0;
    for (let index = chunk.indexOf(0x0a); index !== -1; index = chunk.indexOf(0x0a, lineStart)) {
      if (!skipping) lines.push({ text: chunk.toString("utf8", lineStart, index), end: start + index + 1 });
      skipping = false;
      lineStart = index + 1;
    }
    // A line longer than a whole read: give it up and go on after its end.
    if (lineStart === 0 && chunk.length === maxBytes) {
      start += chunk.length;
      skipping = true;
    } else start += lineStart;
    const cursor: TranscriptCursor = {
      schema_version: 1,
      path,
      dev: stats.dev,
      ino: stats.ino,
      offset: start,
      tail: tailDigest(fd, start),
      skipping,
      from_start: fromStart,
      // A file replaced or rewritten starts over: what its old lines stated is not carried onto the new ones.
      ...(continues && previous.facts ? { facts: previous.facts } : {}),
    };
    return { ok: true, lines, cursor, restarted: previous !== undefined && !continues, fromStart };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, reason: "missing", detail: `${path} does not exist` };
    return { ok: false, reason: code === "ELOOP" ? "not-a-file" : "io", detail: `${path}: ${code ?? String(error)}` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readBytes(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, length));
  let read = 0;
  while (read < buffer.length) {
    const got = readSync(fd, buffer, read, buffer.length - read, position + read);
    if (got === 0) break;
    read += got;
  }
  return buffer.subarray(0, read);
}

function tailDigest(fd: number, offset: number): string {
  const from = Math.max(0, offset - TAIL_BYTES);
  // node:crypto is required here, not at the top: it loads dozens of Node's internal modules, and the readers that
  // bundle this file (focus, next, status, the picker) reach it only for a record with a transcript.
  return process
    .getBuiltinModule("node:crypto")
    .createHash("sha256")
    .update(readBytes(fd, from, offset - from))
    .digest("hex");
}

/** Where a record's transcript cursor lives: `<state>/transcripts/<record digest>.json`. */
export function cursorPath(stateDir: string, recordDigest: string): string {
  return join(stateDir, "transcripts", `${recordDigest}.json`);
}

/** The saved cursor, or undefined when there is none or it does not read (then the file is read from its recent end). */
export function loadCursor(path: string): TranscriptCursor | undefined {
  const read = readJsonFile(path, CURSOR_BYTES);
  if (read.kind !== "json") return undefined;
  const parsed = CursorSchema.safeParse(read.value);
  return parsed.success ? parsed.data : undefined;
}

export function saveCursor(stateDir: string, path: string, cursor: TranscriptCursor): boolean {
  if (!ensurePrivateDir(join(stateDir, "transcripts")).ok) return false;
  return writeJsonAtomic(path, cursor, CURSOR_BYTES).ok;
}
