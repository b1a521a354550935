import { describe, expect, it } from "vitest";
import { applyEvent } from "./apply.ts";
import type { LifecycleEvent } from "../core/schema.ts";
import type { SessionRecord } from "../core/schema.ts";

const T0 = "2026-11-29T10:00:00.000Z";
const T1 = "2026-11-29T10:00:05.000Z";

const event = (overrides: Partial<LifecycleEvent> = {}): LifecycleEvent => ({
  harness: "pi",
  alias: "fleet-event",
  eventId: "pi.agent-start",
  canonicalId: `fleet:v1:pi:${"a".repeat(64)}`,
  sessionId: "s",
  instanceId: "i",
  identity: "emitter",
  pid: 42,
  processStart: "linux:b:1",
  cwd: "/w",
  status: "running",
  detail: "",
  tool: "",
  sequence: 2,
  startsSession: false,
  mayCreate: true,
  sharedProcess: false,
  launch: undefined,
  terminal: { env: { TMUX_PANE: "%1" } },
  ...overrides,
});

function created(overrides: Partial<LifecycleEvent> = {}): SessionRecord {
  const result = applyEvent(undefined, event(overrides), T0);
  if (result.action !== "write") throw new Error("expected a write");
  return result.record;
}

describe("applyEvent", () => {
  it("creates a record with arrival sequence 1", () => {
    expect(created()).toMatchObject({
      status: "running",
      sequence: 2,
      arrival_sequence: 1,
      created_at: T0,
      status_changed_at: T0,
      terminal: { env: { TMUX_PANE: "%1" } },
    });
  });

  it("does not create a record when the event may not (unresolved tool/stop/end events)", () => {
    expect(applyEvent(undefined, event({ mayCreate: false }), T0)).toMatchObject({ action: "skip", reason: "no-record" });
  });

  it("rejects an emitter sequence that is equal to or older than the stored one", () => {
    const record = created({ sequence: 5 });
    expect(applyEvent(record, event({ sequence: 5 }), T1)).toMatchObject({ action: "skip", reason: "stale-sequence" });
    expect(applyEvent(record, event({ sequence: 4 }), T1)).toMatchObject({ action: "skip", reason: "stale-sequence" });
    expect(applyEvent(record, event({ sequence: 6, status: "idle" }), T1)).toMatchObject({
      action: "write",
      record: { sequence: 6, status: "idle", arrival_sequence: 2 },
    });
  });

  it("counts arrival order for native events, which carry no trusted sequence", () => {
    const record = created({ sequence: null, identity: "process" });
    const next = applyEvent(record, event({ sequence: null, identity: "process", status: "waiting" }), T1);
    expect(next).toMatchObject({ action: "write", record: { arrival_sequence: 2, sequence: null, status_changed_at: T1 } });
  });

  it("applies a stated fact only when the harness stated it after the record's last event", () => {
    const record = created({ sequence: null, identity: "process" });
    const stated = (at: string) =>
      event({ sequence: null, identity: "process", status: "idle", mayCreate: false, stated: { source: "transcript", at } });
    expect(applyEvent(record, stated(T0), T1)).toMatchObject({ action: "skip", reason: "superseded" });
    expect(applyEvent(record, stated("2026-11-29T09:59:59.000Z"), T1)).toMatchObject({ action: "skip", reason: "superseded" });
    expect(applyEvent(record, stated("2026-11-29T10:00:00.001Z"), T1)).toMatchObject({
      action: "write",
      record: { status: "idle", updated_at: T1 },
    });
    expect(applyEvent(undefined, stated(T1), T1)).toMatchObject({ action: "skip", reason: "no-record" });
  });

  it("keeps status_changed_at when the status does not change", () => {
    const next = applyEvent(created(), event({ sequence: 3, detail: "Bash" }), T1);
    expect(next).toMatchObject({ action: "write", record: { status_changed_at: T0, updated_at: T1, detail: "Bash" } });
  });

  it("an event that yields to a state leaves it (the idle reminder does not erase an error)", () => {
    const failed = created({ status: "error", detail: "turn failed (API error)" });
    expect(applyEvent(failed, event({ sequence: 3, status: "idle", yieldsTo: ["error"] }), T1)).toMatchObject({
      action: "skip",
      reason: "kept",
    });
    expect(applyEvent(created({ status: "running" }), event({ sequence: 3, status: "idle", yieldsTo: ["error"] }), T1)).toMatchObject({
      action: "write",
      record: { status: "idle" },
    });
  });

  it("ignores late events after the session ended, except a new session start", () => {
    const ended = created({ status: "ended" });
    expect(applyEvent(ended, event({ sequence: 3 }), T1)).toMatchObject({ action: "skip", reason: "already-ended" });
    expect(applyEvent(ended, event({ sequence: 3, status: "started", startsSession: true }), T1)).toMatchObject({ action: "write" });
  });

  it("captures launch and terminal only on creation or session start, so later events cannot relabel a session", () => {
    const record = created({ launch: { launch_id: "0".repeat(32), profile_id: "work" } });
    const relabel = applyEvent(record, event({ sequence: 3, launch: { profile_id: "other" }, terminal: { env: { TMUX_PANE: "%9" } } }), T1);
    expect(relabel).toMatchObject({
      action: "write",
      record: { launch: { launch_id: "0".repeat(32), profile_id: "work" }, terminal: { env: { TMUX_PANE: "%1" } } },
    });
    const restart = applyEvent(
      record,
      event({
        sequence: 3,
        startsSession: true,
        status: "started",
        launch: { profile_id: "other" },
        terminal: { env: { TMUX_PANE: "%9" } },
      }),
      T1,
    );
    expect(restart).toMatchObject({ action: "write", record: { launch: { profile_id: "other" }, terminal: { env: { TMUX_PANE: "%9" } } } });
  });
});

describe("limits, compaction and subagents", () => {
  const T2 = "2026-11-29T10:00:09.000Z";
  const limit = { kind: "rate_limit" as const, stated: "rate_limit", message: "You've hit your limit" };
  const write = (record: SessionRecord | undefined, overrides: Partial<LifecycleEvent>, at = T1): SessionRecord => {
    const result = applyEvent(record, event({ sequence: null, ...overrides }), at);
    if (result.action !== "write") throw new Error(`expected a write: ${JSON.stringify(result)}`);
    return result.record;
  };

  it("a limit holds while the error it ended in does, and goes with the next state", () => {
    const failed = write(created(), { status: "error", detail: limit.message, limit, wait: "clear" });
    expect(failed).toMatchObject({ status: "error", limit });
    // A reminder that does not replace the error keeps it.
    expect(applyEvent(failed, event({ sequence: null, status: "idle", yieldsTo: ["error"] }), T2)).toMatchObject({ action: "skip" });
    const next = write(failed, { status: "running", detail: "processing prompt" }, T2);
    expect(next.limit).toBeUndefined();
  });

  it("compaction shows while it lasts and its end restores the state it began in", () => {
    const idle = write(created(), { status: "idle", wait: "clear" });
    const compacting = write(idle, { status: "running", detail: "compacting", compaction: { phase: "start", trigger: "manual" } });
    expect(compacting).toMatchObject({
      status: "running",
      detail: "compacting",
      compacting: { since: T1, trigger: "manual", was: "idle" },
    });
    const done = write(compacting, { status: "running", detail: "compacted", compaction: { phase: "end", trigger: "manual" } }, T2);
    expect(done).toMatchObject({ status: "idle", detail: "compacted" });
    expect(done.compacting).toBeUndefined();
    // Inside a turn: the turn goes on.
    const turn = write(compacting, { status: "running", detail: "x" });
    const midTurn = write(write(turn, { status: "running", detail: "compacting", compaction: { phase: "start", trigger: "auto" } }), {
      status: "running",
      detail: "compacted",
      compaction: { phase: "end", trigger: "auto" },
    });
    expect(midTurn).toMatchObject({ status: "running", detail: "compacted" });
    // Its start never seen: the trigger says which.
    expect(write(idle, { status: "running", detail: "compacted", compaction: { phase: "end", trigger: "manual" } })).toMatchObject({
      status: "idle",
    });
  });

  it("a subagent starting or stopping changes the list, never the state; a session start clears it", () => {
    const idle = write(created(), { status: "idle", detail: "done", wait: "clear" });
    const one = write(idle, { status: "running", subagent: { op: "start", id: "a1", type: "Explore" } });
    expect(one).toMatchObject({
      status: "idle",
      detail: "done",
      status_changed_at: idle.status_changed_at,
      subagents: [{ id: "a1", type: "Explore", since: T1 }],
    });
    const two = write(one, { status: "running", subagent: { op: "start", id: "a2", type: "Plan" } });
    expect(two.subagents?.map((agent) => agent.id)).toEqual(["a1", "a2"]);
    expect(two.history?.at(-1)?.change).toContain("subagent Plan started (2 running)");
    const back = write(two, { status: "running", subagent: { op: "stop", id: "a1", type: "" } });
    expect(back.subagents?.map((agent) => agent.id)).toEqual(["a2"]);
    expect(write(back, { status: "running", subagent: { op: "stop", id: "a2", type: "" } }).subagents).toBeUndefined();
    expect(write(back, { status: "started", startsSession: true }).subagents).toBeUndefined();
  });

  it("keeps the model the last event named, with when", () => {
    const record = write(created(), { model: "gpt-5-codex" });
    expect(record.model).toEqual({ id: "gpt-5-codex", at: T1 });
    expect(write(record, { status: "idle" }, T2).model).toEqual({ id: "gpt-5-codex", at: T1 });
  });
});
