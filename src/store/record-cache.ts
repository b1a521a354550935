// Records already validated, remembered across runs in the state dir, so that listing hundreds of records (status
// every few seconds, the picker's first screen, next, focus) validates only the files that changed since the last
// listing: validation, not reading, is most of a listing's cost (docs/benchmarks.md).
//
// An entry is used only when the record file's exact text is the text it was validated from; anything else (a new or
// changed file, an entry written by another build, a damaged cache) is validated as before. The cache is ours, in
// the private state dir, written atomically; it is best effort: when it cannot be read or written, only speed changes.
import { join } from "node:path";
import { isRecord } from "../core/json-value.ts";
import type { SessionRecord } from "../core/schema.ts";
import { readJsonFile, writeFileAtomic, type ValidatedRecords } from "./records.ts";
import { BUILD, VERSION } from "../core/version.ts";

export const RECORD_CACHE_FILE = "validated-records.json";
const CACHE_FORMAT = 1;
/** Entries are used only by the build that validated them: another build may validate or parse differently. */
const WRITER = `${VERSION}+${BUILD}`;
/** A cache larger than this is neither read nor written (about 40,000 typical records). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

interface Entry {
  readonly text: string;
  readonly record: SessionRecord;
}

export interface RecordCache extends ValidatedRecords {
  /** Write the entries of this listing back when anything changed: new entries, or entries no longer listed. */
  save(): void;
}

export function openRecordCache(stateDir: string): RecordCache {
  const path = join(stateDir, RECORD_CACHE_FILE);
  const loaded = loadEntries(path);
  const current = new Map<string, Entry>();
  let changed = false;
  // A lower bound of the cache's size (each text is in it once, and its record holds the same fields), so that a
  // listing too large to cache does not serialize it only to find out.
  let textBytes = 0;
  return {
    lookup(digest, text) {
      const entry = loaded.get(digest);
      if (entry?.text !== text) return undefined;
      current.set(digest, entry);
      textBytes += text.length;
      return entry.record;
    },
    remember(digest, text, record) {
      current.set(digest, { text, record });
      textBytes += text.length;
      changed = true;
    },
    save() {
      if ((!changed && current.size === loaded.size) || 2 * textBytes > MAX_CACHE_BYTES) return;
      const text = JSON.stringify({ format: CACHE_FORMAT, writer: WRITER, entries: Object.fromEntries(current) });
      writeFileAtomic(path, text, { maxBytes: MAX_CACHE_BYTES });
    },
  };
}

function loadEntries(path: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const file = readJsonFile(path, MAX_CACHE_BYTES);
  if (file.kind !== "json" || !isRecord(file.value)) return entries;
  const { format, writer, entries: stored } = file.value;
  if (format !== CACHE_FORMAT || writer !== WRITER || !isRecord(stored)) return entries;
  for (const [digest, entry] of Object.entries(stored)) {
    // The shape a listing relies on; the record's content was validated when it was remembered.
    if (!isRecord(entry) || typeof entry.text !== "string" || !isRecord(entry.record)) continue;
    entries.set(digest, { text: entry.text, record: entry.record as unknown as SessionRecord });
  }
  return entries;
}
