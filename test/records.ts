// Session records of a live process (this test process), pointing at any terminal target: for targets that cannot be
// produced by running an agent there (a window that no longer exists, a Terminal.app tty on Linux).
import { canonicalId, digestOf, processInstanceId } from "../src/core/identity.ts";
import { ensureStateDirs } from "../src/store/paths.ts";
import { linuxProcessSource } from "../src/core/proc.ts";
import type { SessionRecord, Terminal } from "../src/core/schema.ts";
import { writeRecord } from "../src/store/records.ts";

export async function writeLiveRecord(
  stateDir: string,
  sessionId: string,
  terminal: Terminal,
  cwd = "/w",
  overrides: Partial<SessionRecord> = {},
): Promise<string> {
  const me = await linuxProcessSource().basics(process.pid);
  if (!me) throw new Error("cannot read this test process from /proc");
  const instance = processInstanceId(process.pid, me.startToken);
  const id = canonicalId("claude", sessionId, instance);
  const now = new Date().toISOString();
  writeRecord(ensureStateDirs(stateDir).sessionsDir, digestOf(id) as string, {
    schema_version: 1,
    canonical_id: id,
    harness: "claude",
    session_id: sessionId,
    instance_id: instance,
    identity: "process",
    pid: process.pid,
    process_start: me.startToken,
    cwd,
    status: "idle",
    detail: "",
    tool: "",
    sequence: null,
    arrival_sequence: 1,
    last_event: "claude.stop",
    created_at: now,
    updated_at: now,
    status_changed_at: now,
    terminal,
    ...overrides,
  });
  return id;
}

/** A valid record of a made-up process, for tests of storage and listing; its file name digest is "b" x 64. */
export function sampleRecord(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    schema_version: 1,
    canonical_id: `fleet:v1:claude:${"b".repeat(64)}`,
    harness: "claude",
    session_id: "s1",
    instance_id: "pid:1@t",
    identity: "process",
    pid: 1,
    process_start: "t",
    cwd: "/w",
    status: "running",
    detail: "",
    tool: "",
    sequence: null,
    arrival_sequence: 1,
    last_event: "claude.prompt-submit",
    created_at: "2026-11-29T11:00:00.000Z",
    updated_at: "2026-11-29T11:00:00.000Z",
    status_changed_at: "2026-11-29T11:00:00.000Z",
    terminal: { env: {} },
    ...overrides,
  };
}
