// The three identities of a session (docs/contract.md, "Identity"):
// - session_id: the harness's conversation id;
// - instance_id: one running harness process;
// - canonical_id: fleet:v1:<harness-id>:<sha256 of the tuple>, the record's key.
import { CANONICAL_ID_PATTERN, UNRESOLVED_INSTANCE } from "./schema.ts";
import { sha256Hex } from "./sha256.ts";

/** SHA-256 (lowercase hex) of the UTF-8 bytes of the JSON array [harness_id, session_id, instance_id]. */
export function identityDigest(harnessId: string, sessionId: string, instanceId: string): string {
  return sha256Hex(JSON.stringify([harnessId, sessionId, instanceId]));
}

/** Key of one harness process (for its current-session pointer): SHA-256 of the JSON array [harness_id, instance_id]. */
export function instanceDigest(harnessId: string, instanceId: string): string {
  return sha256Hex(JSON.stringify([harnessId, instanceId]));
}

export function canonicalId(harnessId: string, sessionId: string, instanceId: string): string {
  return `fleet:v1:${harnessId}:${identityDigest(harnessId, sessionId, instanceId)}`;
}

/** The digest part of a canonical id, or undefined when it is not one. Record file names come only from this. */
export function digestOf(canonical: string): string | undefined {
  return CANONICAL_ID_PATTERN.exec(canonical)?.[2];
}

/** Instance id of a harness process found through ancestry: its PID plus its process-start token. */
export function processInstanceId(pid: number, startToken: string): string {
  return `pid:${pid}@${startToken}`;
}

export function placeholderCanonicalId(harnessId: string, sessionId: string): string {
  return canonicalId(harnessId, sessionId, UNRESOLVED_INSTANCE);
}

/** Short id shown in tables: the first 10 hex digits of the digest. Queries accept any unique prefix. */
export function shortId(canonical: string): string {
  return (digestOf(canonical) ?? canonical).slice(0, 10);
}
