// The identity of one open wait: what an answer is tied to. A fingerprint of the request (the session, the kind of
// wait, the tool that asked, the event that opened it and when), never of its content: tool inputs and prompt text
// stay out of the records (docs/contract.md, "Waiting"). A new request gets a new id even when it looks the same.
import type { PendingWait, SessionRecord } from "../core/schema.ts";
import { sha256Hex } from "../core/sha256.ts";

export function waitIdOf(record: Pick<SessionRecord, "canonical_id">, wait: PendingWait): string {
  return sha256Hex([record.canonical_id, wait.kind, wait.tool, wait.event, wait.since].join("\u0000")).slice(0, 12);
}

/** The wait the session shows: the newest open one (waits.ts keeps them oldest first). */
export function openWaitOf(record: Pick<SessionRecord, "pending"> | undefined): PendingWait | undefined {
  return record?.pending?.at(-1);
}
