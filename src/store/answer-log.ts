// Who answered which wait, and when: one small file per record under <state dir>/answers/, the last few answers as a
// JSON array, so `explain` shows an answer beside the events that made the state. It holds the wait's id, the reply
// and the option's number, never the dialog's text (the request is read from the screen when shown, never kept).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { LIMITS } from "../core/bounds.ts";
import { digestOf } from "../core/identity.ts";
import { readTextFile, writeFileAtomic } from "./records.ts";

const AnswerEntrySchema = z.object({
  at: z.string().check(z.maxLength(40)),
  /** Where the answer came from: `tongs-agents answer` (later: the picker, a notification, a host). */
  by: z.string().check(z.regex(/^[a-z][a-z -]{0,31}$/)),
  wait: z.string().check(z.regex(/^[0-9a-f]{12}$/)),
  reply: z.string().check(z.regex(/^[a-z]{1,16}$/)),
  option: z.int().check(z.gte(1), z.lte(99)),
  channel: z.string().check(z.regex(/^[a-z]{1,16}$/)),
});
export type AnswerEntry = z.infer<typeof AnswerEntrySchema>;

const FILE_BYTES = 4096;
/** In the state dir: one file per record answered. */
export const ANSWERS_DIR = "answers";

function answerPath(stateDir: string, canonicalId: string): string | undefined {
  const digest = digestOf(canonicalId);
  return digest === undefined ? undefined : join(stateDir, ANSWERS_DIR, digest);
}

/** The answers kept for a record, oldest first; none when the file is missing or not what this module writes. */
export function answersOf(stateDir: string, canonicalId: string): AnswerEntry[] {
  const path = answerPath(stateDir, canonicalId);
  if (!path) return [];
  const file = readTextFile(path, FILE_BYTES);
  if (file.kind !== "text") return [];
  try {
    const parsed = z.array(AnswerEntrySchema).safeParse(JSON.parse(file.text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * Keep one more answer (the last LIMITS.historyEntries). Best effort, after the answer was sent: a failure to write is
 * reported, the answer stands. Two answers to one session at the same instant may keep only one of them.
 */
export function recordAnswer(stateDir: string, canonicalId: string, entry: AnswerEntry): { ok: true } | { ok: false; detail: string } {
  const path = answerPath(stateDir, canonicalId);
  if (!path) return { ok: false, detail: "not a canonical id" };
  try {
    mkdirSync(join(stateDir, ANSWERS_DIR), { recursive: true, mode: 0o700 });
  } catch (error) {
    return { ok: false, detail: `${join(stateDir, ANSWERS_DIR)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  const kept = [...answersOf(stateDir, canonicalId), entry].slice(-LIMITS.historyEntries);
  const written = writeFileAtomic(path, JSON.stringify(kept), { maxBytes: FILE_BYTES });
  return written.ok ? { ok: true } : { ok: false, detail: written.detail };
}
