import { existsSync, readdirSync } from "node:fs";
import { basename } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { canonicalId, digestOf } from "../core/identity.ts";
import type { LifecycleEvent, SessionRecord } from "../core/schema.ts";
import { applyEvent, tombstoneFor } from "../store/apply.ts";
import { ensureStateDirs } from "../store/paths.ts";
import { prune } from "../store/prune.ts";
import { withRecordLock } from "../store/record-lock.ts";
import { readRecord, recordPath, writeRecord } from "../store/records.ts";
import { enqueue, spoolDirOf } from "../store/spool.ts";
import { explainSession } from "./explain.ts";
import { loadFleet } from "./sessions.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const processes = fakeProcessSource([fakeProcess(100, 1, "claude"), fakeProcess(200, 1, "claude")]);

let sandbox: Sandbox;
let sessionsDir: string;
beforeEach(() => {
  sandbox = makeSandbox();
  sessionsDir = ensureStateDirs(sandbox.stateDir).sessionsDir;
});
afterEach(() => sandbox.cleanup());

function event(
  session: string,
  eventId: string,
  status: LifecycleEvent["status"],
  detail: string,
  extra: Partial<LifecycleEvent> = {},
  pid = 100,
): LifecycleEvent {
  const instanceId = `pid:${pid}@linux:boot:${pid}00`;
  return {
    harness: "claude",
    alias: eventId.split(".")[1] as string,
    eventId,
    canonicalId: canonicalId("claude", session, instanceId),
    sessionId: session,
    instanceId,
    identity: "process",
    pid,
    processStart: `linux:boot:${pid}00`,
    cwd: "/w",
    status,
    detail,
    tool: "",
    sequence: null,
    startsSession: eventId.endsWith("session-start"),
    mayCreate: status !== "ended",
    sharedProcess: false,
    terminal: { env: {} },
    wait: status === "running" ? "clear" : status === "waiting" ? "permission" : "clear",
    ...extra,
  };
}
const digest = (e: LifecycleEvent) => digestOf(e.canonicalId) as string;
const at = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

/** Write the record the events make, as a hook holding the lock would. */
function written(...events: LifecycleEvent[]): SessionRecord {
  let record: SessionRecord | undefined;
  events.forEach((e, index) => {
    const result = applyEvent(record, e, at(60 - index));
    if (result.action === "write") record = result.record;
  });
  writeRecord(sessionsDir, digest(events[0] as LifecycleEvent), record as SessionRecord);
  return record as SessionRecord;
}
const queue = (e: LifecycleEvent) => {
  const queued = enqueue(sessionsDir, digest(e), e);
  if (!queued.ok) throw new Error(queued.detail);
  return queued.path;
};
const shown = async () =>
  Object.fromEntries(
    (await loadFleet({ stateDir: sandbox.stateDir, processes, now: () => NOW }, { discover: false })).sessions.map((s) => [
      s.session_id,
      s,
    ]),
  );

describe("readers apply events still queued for a record", () => {
  it("a deferred final Stop: the record file says running, every reader says idle, and nothing is written", async () => {
    const start = event("s1", "claude.session-start", "started", "session started");
    written(start, event("s1", "claude.prompt-submit", "running", "processing prompt"));
    queue(event("s1", "claude.stop", "idle", "All done."));
    expect(await shown()).toMatchObject({ s1: { status: "idle", detail: "All done.", last_event: "claude.stop" } });
    expect(readRecord(recordPath(sessionsDir, digest(start)))).toMatchObject({ kind: "record", record: { status: "running" } });
    const explained = await explainSession({ stateDir: sandbox.stateDir, processes, now: () => NOW }, "s1");
    expect(explained.ok && explained.explanation.entries.map((entry) => [entry.event, entry.recorded])).toEqual([
      ["claude.session-start", true],
      ["claude.prompt-submit", true],
      ["claude.stop", false],
    ]);
    expect(explained.ok && explained.explanation.unwritten).toBe(1);
  });

  it("a deferred SessionEnd ends the session for readers", async () => {
    written(event("s1", "claude.session-start", "started", "session started"));
    queue(event("s1", "claude.session-end", "ended", "session closed"));
    expect((await shown()).s1).toMatchObject({ status: "ended", detail: "session closed" });
  });

  it("does not take the record's lock (status runs every few seconds): a held lock changes nothing", async () => {
    const start = event("s1", "claude.session-start", "started", "session started");
    written(start);
    queue(event("s1", "claude.stop", "idle", "done"));
    const held = await withRecordLock(sessionsDir, digest(start), 1000, async () => (await shown()).s1?.status);
    expect(held).toEqual({ ok: true, value: "idle" });
  });

  it("skips entries the record's last write already applied (named in queue_applied) while they are still queued", async () => {
    const start = event("s1", "claude.session-start", "started", "session started");
    const stop = event("s1", "claude.stop", "idle", "done");
    const path = queue(stop);
    const record = written(start, stop);
    writeRecord(sessionsDir, digest(start), { ...record, queue_applied: [basename(path)] });
    expect((await shown()).s1).toMatchObject({ status: "idle" });
    const fleet = await loadFleet({ stateDir: sandbox.stateDir, processes, now: () => NOW }, { discover: false });
    expect(fleet.records?.get(start.canonicalId)).toMatchObject({ unwritten: 0, record: { arrival_sequence: 2 } });
  });

  it("shows a session whose only event so far is queued, and nothing for a migrated placeholder", async () => {
    queue(event("s2", "claude.session-start", "started", "session started"));
    const placeholder = event("s3", "claude.prompt-submit", "running", "processing prompt", {
      identity: "unresolved",
      instanceId: "unresolved",
      pid: null,
      processStart: null,
      canonicalId: canonicalId("claude", "s3", "unresolved"),
    });
    writeRecord(
      sessionsDir,
      digest(placeholder),
      tombstoneFor(placeholder.canonicalId, canonicalId("claude", "s3", "pid:100@linux:boot:10000"), at(30)),
    );
    queue(placeholder);
    expect(Object.keys(await shown())).toEqual(["s2"]);
  });

  it("one live session per process: a session start still queued ends its predecessor for readers", async () => {
    written(event("old", "claude.session-start", "started", "session started", { spawn: { start: 1000, pid: 500 } }));
    queue(event("new", "claude.session-start", "started", "session started", { spawn: { start: 1001, pid: 501 } }));
    const sessions = await shown();
    expect(sessions.old).toMatchObject({ status: "ended", detail: "replaced by a new session in the same process" });
    expect(sessions.new).toMatchObject({ status: "started" });
  });

  it("a process that hosts several sessions (OpenCode): a second session, written or queued, ends none", async () => {
    const opencode = (session: string, start: number): LifecycleEvent => ({
      ...event(session, "opencode.session-start", "started", "session started", { spawn: { start, pid: 500 } }),
      harness: "opencode",
      alias: "fleet-event",
      canonicalId: canonicalId("opencode", session, "inst-oc"),
      instanceId: "inst-oc",
      identity: "emitter",
      sharedProcess: true,
    });
    written(opencode("first", 1000));
    written(opencode("second", 1001));
    queue(opencode("third", 1002));
    const sessions = await shown();
    expect([sessions.first?.status, sessions.second?.status, sessions.third?.status]).toEqual(["started", "started", "started"]);
  });

  it("an older session start, queued late, does not replace the newer session", async () => {
    written(event("new", "claude.session-start", "started", "session started", { spawn: { start: 1001, pid: 501 } }));
    queue(event("old", "claude.session-start", "started", "session started", { spawn: { start: 1000, pid: 500 } }));
    const sessions = await shown();
    expect(sessions.new).toMatchObject({ status: "started" });
    expect(sessions.old).toMatchObject({ status: "ended" });
  });
});

describe("prune and queues", () => {
  it("removes the queue of a removed session, keeps a queue that revives an ended one, and removes an empty orphan queue", async () => {
    const gone = event("gone", "claude.session-start", "started", "session started");
    written(gone, event("gone", "claude.session-end", "ended", "session closed"));
    queue(event("gone", "claude.stop", "idle", "late"));
    const revived = event("back", "claude.session-start", "started", "session started", {}, 200);
    written(revived, event("back", "claude.session-end", "ended", "session closed", {}, 200));
    queue(revived);
    const orphan = event("orphan", "claude.stop", "idle", "no record", { mayCreate: false });
    queue(orphan);

    const result = await prune({ stateDir: sandbox.stateDir, processes, now: () => NOW });
    expect(result.ok && result.removed.map((entry) => [entry.kind, entry.reason])).toEqual(
      expect.arrayContaining([
        ["record", "ended"],
        ["spool", "queue of a removed session (ended)"],
        ["spool", "queue with nothing to apply"],
      ]),
    );
    expect(existsSync(spoolDirOf(sessionsDir, digest(gone)))).toBe(false);
    expect(existsSync(spoolDirOf(sessionsDir, digest(orphan)))).toBe(false);
    expect(readdirSync(spoolDirOf(sessionsDir, digest(revived)))).toHaveLength(1);
    expect((await shown()).back).toMatchObject({ status: "started" });
  });

  it("a dry run removes nothing", async () => {
    const gone = event("gone", "claude.session-start", "started", "session started");
    written(gone, event("gone", "claude.session-end", "ended", "session closed"));
    queue(event("gone", "claude.stop", "idle", "late"));
    const result = await prune({ stateDir: sandbox.stateDir, processes, now: () => NOW, dryRun: true });
    expect(result.ok && result.removed.map((entry) => entry.kind).sort()).toEqual(["record", "spool"]);
    expect(readdirSync(spoolDirOf(sessionsDir, digest(gone)))).toHaveLength(1);
  });
});
