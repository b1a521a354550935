// A record must stay within LIMITS.recordBytes (64 KiB) as written. Its own fields are bounded one by one, but text
// that JSON escapes (control characters take six bytes each) can push a record with a long cwd, a full terminal map
// and a full history past the bound. Then what only explains the state goes first (the oldest history entries, the
// running tools), before the write would be refused and the event lost.
import { LIMITS, byteLength } from "../core/bounds.ts";
import type { SessionRecord } from "../core/schema.ts";

/** The size of a record as records.ts writes it (pretty-printed, newline-terminated). */
export function writtenBytes(record: SessionRecord): number {
  return byteLength(`${JSON.stringify(record, null, 2)}\n`);
}

export function fitted(record: SessionRecord, maxBytes: number = LIMITS.recordBytes): SessionRecord {
  if (writtenBytes(record) <= maxBytes) return record;
  const trimmed: SessionRecord = { ...record };
  while (trimmed.history && trimmed.history.length > 0 && writtenBytes(trimmed) > maxBytes) {
    trimmed.history = trimmed.history.slice(1);
    if (trimmed.history.length === 0) delete trimmed.history;
  }
  if (trimmed.running_tools && writtenBytes(trimmed) > maxBytes) delete trimmed.running_tools;
  // The newest wait is what the session shows; older ones go last.
  if (trimmed.pending && trimmed.pending.length > 1 && writtenBytes(trimmed) > maxBytes) trimmed.pending = trimmed.pending.slice(-1);
  return trimmed;
}
