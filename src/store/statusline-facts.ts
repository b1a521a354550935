// What a harness hands its status-line command, kept per session (docs/limits.md): Claude Code states there, and only
// there, the context window's size and (for subscribers) how much of each quota window is used and when it resets.
// The optional status-line wrapper (src/hook/statusline.ts) writes `<state>/statusline/<digest>.json`, one small file per
// session, replaced atomically; readers merge it with what the transcript states (fleet/usage.ts).
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { sha256Hex } from "../core/sha256.ts";
import type { SessionRecord } from "../core/schema.ts";
import { UsageFactsSchema, type UsageFacts } from "../core/usage-facts.ts";
import { ensurePrivateDir } from "./paths.ts";
import { readJsonFile, writeJsonAtomic, type WriteResult } from "./records.ts";

export const STATUSLINE_DIR = "statusline";
/** A session's facts stay well under this. */
const FACTS_BYTES = 8 * 1024;

/** `<state>/statusline/<sha256 of ["<harness>","<session id>"]>.json`. */
export function statuslinePath(stateDir: string, harness: string, sessionId: string): string {
  return join(stateDir, STATUSLINE_DIR, `${sha256Hex(JSON.stringify([harness, sessionId]))}.json`);
}

export function readStatuslineFacts(path: string): UsageFacts | undefined {
  const read = readJsonFile(path, FACTS_BYTES);
  if (read.kind !== "json") return undefined;
  const parsed = UsageFactsSchema.safeParse(read.value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * What the status line last stated about a live record's session (undefined when it never ran for it), for a listing of
 * many records: the directory is read once, and a record whose file is not there costs neither a hash nor an open (a
 * listing of 500 records without the wrapper spent some 60 ms hashing paths of files that did not exist).
 */
export function statuslineFactsReader(stateDir: string): (record: SessionRecord) => UsageFacts | undefined {
  let names: ReadonlySet<string>;
  try {
    names = new Set(readdirSync(join(stateDir, STATUSLINE_DIR)));
  } catch {
    return () => undefined;
  }
  if (names.size === 0) return () => undefined;
  return (record) => {
    if (record.status === "ended") return undefined;
    const path = statuslinePath(stateDir, record.harness, record.session_id);
    return names.has(basename(path)) ? readStatuslineFacts(path) : undefined;
  };
}

export function writeStatuslineFacts(stateDir: string, path: string, facts: UsageFacts): WriteResult {
  const dir = ensurePrivateDir(join(stateDir, STATUSLINE_DIR));
  if (!dir.ok) return { ok: false, reason: "io", detail: dir.detail };
  return writeJsonAtomic(path, facts, FACTS_BYTES);
}
