// Which sessions the user has looked at since they last changed: an idle session the user has not seen since it went
// idle ("idle-unseen") ranks above running ones. Marks are written when focus shows a session.
import { join } from "node:path";
import { readJsonFile, writeJsonAtomic } from "../store/records.ts";

export type SeenMarks = Readonly<Record<string, string>>;

const SEEN_FILE = "seen.json";
/** Older marks beyond this many are dropped (oldest first), so the file stays small. */
const MAX_MARKS = 2000;

export function readSeen(stateDir: string): SeenMarks {
  const file = readJsonFile(join(stateDir, SEEN_FILE), 512 * 1024);
  if (file.kind !== "json" || typeof file.value !== "object" || file.value === null) return {};
  const seen = (file.value as { seen?: unknown }).seen;
  if (typeof seen !== "object" || seen === null) return {};
  return Object.fromEntries(
    Object.entries(seen).filter((entry): entry is [string, string] => typeof entry[1] === "string" && !Number.isNaN(Date.parse(entry[1]))),
  );
}

/** Best effort: a lost mark only means a session ranks as unseen a little longer. */
export function markSeen(stateDir: string, id: string, now: number = Date.now()): void {
  const marks = { ...readSeen(stateDir), [id]: new Date(now).toISOString() };
  const kept = Object.entries(marks)
    .sort((a, b) => Date.parse(b[1]) - Date.parse(a[1]))
    .slice(0, MAX_MARKS);
  writeJsonAtomic(join(stateDir, SEEN_FILE), { schema_version: 1, seen: Object.fromEntries(kept) }, 512 * 1024);
}

export function isUnseen(session: { id: string; status_changed_at: string }, seen: SeenMarks): boolean {
  const mark = seen[session.id];
  return mark === undefined || Date.parse(mark) < Date.parse(session.status_changed_at);
}
