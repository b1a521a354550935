// What a harness hands its status-line command, kept per session (docs/limits.md): Claude Code states there, and only
// there, the context window's size and (for subscribers) how much of each quota window is used and when it resets.
// The optional status-line wrapper (src/hook/statusline.ts) writes `<state>/statusline/<digest>.json`, one small file per
// session, replaced atomically; readers merge it with what the transcript states (fleet/usage.ts).
import { join } from "node:path";
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

/** What the status line last stated about a live record's session; undefined when it never ran for it. */
export function statuslineFacts(stateDir: string, record: SessionRecord): UsageFacts | undefined {
  if (record.status === "ended") return undefined;
  return readStatuslineFacts(statuslinePath(stateDir, record.harness, record.session_id));
}

export function writeStatuslineFacts(stateDir: string, path: string, facts: UsageFacts): WriteResult {
  const dir = ensurePrivateDir(join(stateDir, STATUSLINE_DIR));
  if (!dir.ok) return { ok: false, reason: "io", detail: dir.detail };
  return writeJsonAtomic(path, facts, FACTS_BYTES);
}
