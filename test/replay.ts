// The replay corpus (test/fixtures/replay/, README there): event streams as a harness sent them, replayed through the
// real hook pipeline in-process against a process table that stands for the harness processes and the shells they
// spawned, so identity, spawn order and session switching work as they did in the captured run.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalId, processInstanceId } from "../src/core/identity.ts";
import type { ProcessInfo, ProcessSource } from "../src/core/proc.ts";
import { runHook, type HookContext, type HookOutcome } from "../src/hook/pipeline.ts";
import { fakeProcess, fakeProcessSource } from "./fake-processes.ts";
import { ROOT } from "./processes.ts";

export const REPLAY_DIR = join(ROOT, "test", "fixtures", "replay");

export interface StreamHeader {
  readonly stream: string;
  readonly origin: "captured" | "composed";
  readonly harness: "claude" | "codex" | "pi";
  readonly version: string;
  readonly how: string;
}

export interface StreamEvent {
  /** Milliseconds since the stream's first event. */
  readonly t: number;
  readonly event: string;
  readonly alias: string;
  /** PID of the harness process that sent it (several when the stream spans a restart). */
  readonly process: number;
  /** The process the harness spawned for the event: its start time (clock ticks) and PID. */
  readonly spawn: { start: number; pid: number };
  readonly payload: Record<string, unknown>;
}

export interface Stream {
  readonly header: StreamHeader;
  readonly events: StreamEvent[];
}

export function streamNames(): string[] {
  return readdirSync(REPLAY_DIR)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => name.slice(0, -".jsonl".length))
    .sort();
}

/** A fixture, with each elided long string (`{"$elided": {chars, head}}`) rebuilt to its original length. */
export function loadStream(name: string): Stream {
  const [header, ...events] = readFileSync(join(REPLAY_DIR, `${name}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((line) => restore(JSON.parse(line)));
  return { header: header as StreamHeader, events: events as StreamEvent[] };
}

function restore(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restore);
  if (value && typeof value === "object") {
    const elided = (value as { $elided?: { chars: number; head: string } }).$elided;
    if (elided) return elided.head + "x".repeat(Math.max(0, elided.chars - elided.head.length));
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, restore(item)]));
  }
  return value;
}

/** Harness processes and the shells they spawned, named exactly as in the captured run (Pi: the emitter's PID). */
export function streamProcesses(stream: Stream, gone: ReadonlySet<number> = new Set()): ProcessSource {
  const rows = new Map<number, ProcessInfo>();
  for (const event of stream.events) {
    if (!gone.has(event.process)) rows.set(event.process, fakeProcess(event.process, 1, stream.header.harness));
    // What the harness spawned for the event: Claude Code's `/bin/sh -c`, Codex's hook itself.
    const spawned = stream.header.harness === "codex" ? ["node", "tongs-agents-hook.cjs"] : ["/bin/sh", "-c", "hook"];
    rows.set(
      event.spawn.pid,
      fakeProcess(event.spawn.pid, event.process, spawned[0] === "node" ? "node" : "sh", spawned, {
        startToken: `linux:boot:${event.spawn.start}`,
      }),
    );
  }
  return fakeProcessSource(rows.values());
}

/** The canonical id the event's record has (native events; Pi's come with their own instance id). */
export function recordIdOf(stream: Stream, event: StreamEvent): string {
  if (event.alias === "fleet-event") return canonicalId("pi", String(event.payload.session_id), String(event.payload.instance_id));
  return canonicalId(
    stream.header.harness,
    String(event.payload.session_id),
    processInstanceId(event.process, `linux:boot:${event.process}00`),
  );
}

export const REPLAY_EPOCH = Date.parse("2026-11-29T10:00:00.000Z");

/**
 * Deliver one event as its harness did: Claude Code's hook is a child of the shell it spawned for the event, Codex's
 * hook its own child (the spawned process is the hook itself).
 */
export function deliver(
  stream: Stream,
  event: StreamEvent,
  context: Omit<HookContext, "ppid" | "pid" | "now"> & { now?: HookContext["now"] },
): Promise<HookOutcome> {
  const args = [event.alias, "--agent", stream.header.harness];
  const direct = stream.header.harness === "codex";
  // By default the stream's own times; a test that contends for locks passes the real clock (lock waits use it).
  return runHook(args, Buffer.from(JSON.stringify(event.payload)), {
    now: () => REPLAY_EPOCH + event.t,
    ...context,
    ppid: direct ? event.process : event.spawn.pid,
    pid: event.spawn.pid,
  });
}
