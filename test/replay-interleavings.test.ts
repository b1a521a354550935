// Property: for every interleaving the lock can produce, readers show what the harness last stated. Each stream of the
// replay corpus is delivered event by event with a generated schedule: the record's lock free; held by someone else
// until the hook gives up (its event left queued, as after a watchdog or a lock timeout); held until the hook has
// queued its event and is waiting (then it drains); or two events delivered at once (their order is then the lock's).
// After every step, what readers show (list, status, the picker, MCP: loadFleet) must equal what the same events give
// when delivered one by one with the lock free, in one of the orders the concurrent deliveries allow.
import fc from "fast-check";
import { readdirSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digestOf } from "../src/core/identity.ts";
import type { ProcessSource } from "../src/core/proc.ts";
import { loadFleet } from "../src/fleet/sessions.ts";
import { ensureStateDirs } from "../src/store/paths.ts";
import { withRecordLock } from "../src/store/record-lock.ts";
import { spoolDirOf } from "../src/store/spool.ts";
import { deliver, loadStream, recordIdOf, streamNames, streamProcesses, type Stream, type StreamEvent } from "./replay.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

type Op = "free" | "gives-up" | "waits" | "together";

/** Schedules tried per stream; TONGS_AGENTS_PROPERTY_RUNS asks for a deeper search (docs/contract.md quotes one). */
const RUNS = Number(process.env.TONGS_AGENTS_PROPERTY_RUNS) || 12;

let sandboxes: Sandbox[] = [];
beforeEach(() => {
  sandboxes = [];
});
afterEach(() => sandboxes.forEach((sandbox) => sandbox.cleanup()));

function fresh(): Sandbox {
  const sandbox = makeSandbox();
  sandboxes.push(sandbox);
  return sandbox;
}

/** What readers show of every session, without times (a reader applies queued events at its own clock). */
async function view(stateDir: string, processes: ProcessSource): Promise<Record<string, unknown>> {
  const fleet = await loadFleet({ stateDir, processes, now: () => Date.now() }, { discover: false });
  const shown: Record<string, unknown> = {};
  for (const [id, { record }] of fleet.records ?? []) {
    shown[id] = {
      status: record.status,
      detail: record.detail,
      tool: record.tool,
      arrival_sequence: record.arrival_sequence,
      pending: (record.pending ?? []).map(({ kind, tool, detail, candidates }) => ({ kind, tool, detail, candidates })),
      running_tools: record.running_tools ?? [],
    };
  }
  return shown;
}

// The real clock: lock waits are bounded by it.
const hookContext = (stateDir: string, processes: ProcessSource, lockBoundMs: number) => ({
  env: {},
  processes,
  stateDir,
  scanBoundMs: 5000,
  lockBoundMs,
  now: Date.now,
});

/** Views after each event, delivered one by one in this order with the lock always free. */
const references = new Map<string, Record<string, unknown>[]>();
async function reference(stream: Stream, order: readonly number[]): Promise<Record<string, unknown>[]> {
  const key = `${stream.header.stream}:${order.join(",")}`;
  const known = references.get(key);
  if (known) return known;
  const { stateDir } = fresh();
  const processes = streamProcesses(stream);
  const views: Record<string, unknown>[] = [];
  for (const index of order) {
    await deliver(stream, stream.events[index] as StreamEvent, hookContext(stateDir, processes, 5000));
    views.push(await view(stateDir, processes));
  }
  references.set(key, views);
  return views;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deliver with the event's record lock held by someone else: until the hook gave up, or until it queued and waits. */
async function deliverContended(
  stream: Stream,
  event: StreamEvent,
  stateDir: string,
  processes: ProcessSource,
  op: "gives-up" | "waits",
): Promise<void> {
  const { sessionsDir } = ensureStateDirs(stateDir);
  const digest = digestOf(recordIdOf(stream, event)) as string;
  const queued = () => {
    try {
      return readdirSync(spoolDirOf(sessionsDir, digest)).filter((name) => name.endsWith(".json")).length;
    } catch {
      return 0;
    }
  };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const holder = withRecordLock(sessionsDir, digest, 5000, async () => {
    held();
    await released;
  });
  await holding;
  const before = queued();
  const hook = deliver(stream, event, hookContext(stateDir, processes, op === "gives-up" ? 30 : 5000));
  if (op === "gives-up") await hook;
  else for (let tries = 0; queued() <= before && tries < 500; tries++) await sleep(2);
  release();
  await holder;
  await hook;
}

/** A schedule: one op per event; `together` delivers the event with the next one at once (at most two such pairs). */
const schedule = (length: number) =>
  fc.array(fc.constantFrom<Op>("free", "gives-up", "waits", "together"), { minLength: length, maxLength: length }).map((ops) => {
    let pairs = 0;
    return ops.map((op, index) => (op === "together" && (index === length - 1 || pairs++ >= 2) ? "free" : op));
  });

/** Every order a sequence of steps allows: a pair delivered together may land in either order. */
function orders(steps: readonly (readonly number[])[]): number[][] {
  return steps.reduce<number[][]>(
    (prefixes, step) =>
      prefixes.flatMap((prefix) =>
        step.length === 1
          ? [[...prefix, ...step]]
          : [
              [...prefix, ...step],
              [...prefix, ...[...step].reverse()],
            ],
      ),
    [[]],
  );
}

describe("interleavings of the lock and the spool (fast-check)", { timeout: 600_000 }, () => {
  it.each(streamNames())("%s: readers show the sequential state after every step", async (name) => {
    const stream = loadStream(name);
    await fc.assert(
      fc.asyncProperty(schedule(stream.events.length), async (ops) => {
        const { stateDir } = fresh();
        const processes = streamProcesses(stream);
        const steps: number[][] = [];
        for (let index = 0; index < stream.events.length; index++) {
          const op = ops[index] as Op;
          const event = stream.events[index] as StreamEvent;
          if (op === "together") {
            const next = stream.events[index + 1] as StreamEvent;
            await Promise.all([
              deliver(stream, event, hookContext(stateDir, processes, 5000)),
              deliver(stream, next, hookContext(stateDir, processes, 5000)),
            ]);
            steps.push([index, index + 1]);
            index++;
          } else {
            if (op === "free") await deliver(stream, event, hookContext(stateDir, processes, 5000));
            else await deliverContended(stream, event, stateDir, processes, op);
            steps.push([index]);
          }
          const shown = await view(stateDir, processes);
          const candidates = await Promise.all(orders(steps).map(async (order) => (await reference(stream, order)).at(-1)));
          expect(candidates, `after step ${steps.length} (${ops.slice(0, index + 1).join(", ")})`).toContainEqual(shown);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
