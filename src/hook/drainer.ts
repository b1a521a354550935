// The drainer's pass: what the hook shim queued in `<state>/incoming/` (shim-entry.ts), applied to the store. Entries
// are taken in the order the harness spawned their hooks (start time, then PID: core/spawn-order.ts); each is validated
// and identified exactly as the synchronous hook would (pipeline.ts, identifyEvent), from the process evidence and the
// environment its shim captured, on a clock that starts when its hook fired; then the events of each record are
// applied in one batch under the record's lock (store/transaction.ts, applyBatch), exactly once. An entry leaves the
// queue only once applied, refused, or abandoned by its shim: a drainer killed at any point loses nothing, and two
// drainers at once (one stopped and woken, one started meanwhile) apply each event once.
import { lstatSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { LIMITS } from "../core/bounds.ts";
import { digestOf } from "../core/identity.ts";
import { linuxProcessSource, type ProcessSource } from "../core/proc.ts";
import type { LifecycleEvent } from "../core/schema.ts";
import { compareStarts } from "../core/spawn-order.ts";
import { notifyOnChange } from "./notify-trigger.ts";
import { checkPrivateDir, ensureStateDirs } from "../store/paths.ts";
import { applyBatch, type BatchItem } from "../store/transaction.ts";
import { appendDebugLog, debugEnabled } from "./debug-log.ts";
import { INPUT_BOUND_MS, LOCK_BOUND_MS, SCAN_BOUND_MS, SCRIPT_SCAN_BOUND_MS } from "./bounds.ts";
import { newNativeScanner, type ReadInput } from "./input.ts";
import { identifyEvent, type HookOutcome } from "./pipeline.ts";
import {
  HOOK_ENV_KEYS,
  SHIM_SPOOL_DIR,
  capturedProcessSource,
  entryOrder,
  firedAt,
  parseShimEntry,
  readSpoolFile,
  type ShimEntry,
} from "./shim-entry.ts";

/** An entry its shim never finished (it died writing it), or a payload file without its entry, is removed after this. */
export const ABANDONED_MS = 60_000;
/** Entries applied per pass, at most; a longer queue takes more passes, one right after the other. */
const PASS_ENTRIES = 256;
/** Entries are small; anything larger is not one. */
const ENTRY_MAX_BYTES = 64 * 1024;

export interface DrainContext {
  readonly stateDir: string;
  /** The drainer's own environment; an event's captured variables replace the allowlisted part of it. */
  readonly env: NodeJS.ProcessEnv;
  readonly bootId: string;
  /** Seconds since boot, now (`/proc/uptime`): with an entry's start ticks, when its hook fired. */
  readonly uptimeSeconds: () => number;
  readonly live?: ProcessSource;
  /** Stop a payload reader still holding the agent's stdin once its entry is done (default: SIGKILL, checked). */
  readonly stopReader?: (reader: NonNullable<ShimEntry["reader"]>) => void;
  /** After a record's batch is written and its lock released (the status segments redraw: status-refresh.ts). */
  readonly afterApply?: (sessionsDir: string, digest: string) => void;
}

export interface PassResult {
  /** Entries applied, refused or dropped, and removed. */
  readonly done: number;
  /** Entries left for a later pass: their payload is still coming, their shim is still writing, their record was busy. */
  readonly waiting: number;
}

interface Queued {
  readonly name: string;
  readonly path: string;
  readonly payload: string;
  readonly entry: ShimEntry;
  readonly order: { spawn_start: number; spawn_pid: number };
  readonly fired: number;
}

/** One pass over the queue. Never throws for anything an entry holds. */
export async function drainPass(context: DrainContext): Promise<PassResult> {
  const dir = join(context.stateDir, SHIM_SPOOL_DIR);
  const dirs = ensureStateDirs(context.stateDir);
  if (!dirs.ok || !checkPrivateDir(dir).ok) return { done: 0, waiting: 0 };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { done: 0, waiting: 0 };
  }
  let done = 0;
  let waiting = 0;
  const queued: Queued[] = [];
  const entries = new Set(names.filter((name) => name.endsWith(".ev")));
  // One reading of both clocks for the whole pass: when each entry's hook fired (shim-entry.ts, firedAt).
  const clocks = { now: Date.now(), uptimeSeconds: context.uptimeSeconds() };
  for (const name of names) {
    const path = join(dir, name);
    const order = entryOrder(name);
    if (!order) {
      // A payload whose entry is gone (its shim died before writing it): removed once surely abandoned.
      if (name.endsWith(".in") && !entries.has(`${name.slice(0, -3)}.ev`) && olderThan(path, ABANDONED_MS)) remove(path);
      continue;
    }
    const payload = `${path.slice(0, -3)}.in`;
    const read = readSpoolFile(path, ENTRY_MAX_BYTES);
    if (!read.ok) {
      if (!read.absent) done += drop(context, [path, payload], { ok: false, stage: "input", detail: read.detail }, name);
      continue;
    }
    const parsed = parseShimEntry(read.bytes);
    if (!parsed.ok) {
      if (!parsed.incomplete) done += drop(context, [path, payload], { ok: false, stage: "input", detail: parsed.detail }, name);
      else if (olderThan(path, ABANDONED_MS))
        done += drop(context, [path, payload], { ok: false, stage: "input", detail: `abandoned: ${parsed.detail}` }, name);
      else waiting++;
      continue;
    }
    const fired = firedAt(parsed.entry, clocks) ?? clocks.now;
    queued.push({ name, path, payload, entry: parsed.entry, order, fired });
  }
  queued.sort((a, b) => compareStarts(a.order, b.order));
  // A pass takes at most PASS_ENTRIES, the earliest: the first events of a burst are not held up by the last ones.
  waiting += Math.max(0, queued.length - PASS_ENTRIES);
  queued.length = Math.min(queued.length, PASS_ENTRIES);

  // In spawn order. An entry whose payload is still coming holds back the later entries of the same harness process
  // (the same two nearest ancestors), never the others'.
  const held = new Set<string>();
  const ready: { queued: Queued; input: ReadInput }[] = [];
  for (const item of queued) {
    const keys = relatives(item.entry);
    if (keys.some((key) => held.has(key))) {
      waiting++;
      continue;
    }
    const input = payloadOf(item, context);
    if (!input) {
      for (const key of keys) held.add(key);
      waiting++;
      continue;
    }
    ready.push({ queued: item, input });
  }

  interface Batch {
    readonly items: BatchItem[];
    readonly env: Map<LifecycleEvent, NodeJS.ProcessEnv>;
  }
  const batches = new Map<string, Batch>();
  const live = context.live ?? linuxProcessSource();
  for (const { queued: item, input } of ready) {
    const env = eventEnv(context.env, item.entry.env);
    const lag = Math.max(0, Date.now() - item.fired);
    const identified = await identifyEvent(item.entry.argv, input, {
      env,
      ppid: item.entry.ppid,
      pid: item.entry.pid,
      processes: capturedProcessSource(item.entry.stats, { live, bootId: context.bootId }),
      stateDir: context.stateDir,
      now: () => Date.now() - lag,
      scanBoundMs: SCAN_BOUND_MS,
      scriptScanBoundMs: SCRIPT_SCAN_BOUND_MS,
      lockBoundMs: LOCK_BOUND_MS,
      cwd: item.entry.cwd,
    }).catch((error: unknown): HookOutcome => ({ ok: false, stage: "store", detail: `bug: ${String(error)}` }));
    if ("ok" in identified) {
      done += drop(context, [item.path, item.payload], identified, item.name, item.entry);
      stopReader(item.entry, context);
      continue;
    }
    const digest = digestOf(identified.canonicalId) as string;
    const batch: Batch = batches.get(digest) ?? { items: [], env: new Map() };
    batch.env.set(identified, env);
    batch.items.push({
      path: item.path,
      companions: [item.payload],
      event: identified,
      at: item.fired,
      onDone: (outcome) =>
        log(context, env, {
          argv: item.entry.argv,
          entry: item.name,
          ok: true,
          action: outcome.applied ? "written" : "skipped",
          detail: outcome.applied ? `${identified.eventId} -> ${identified.status}` : outcome.detail,
          event: identified.eventId,
          canonicalId: identified.canonicalId,
          // What the record showed right after this event (a later event of the same batch may be all a reader saw).
          ...(outcome.after ? { state: outcome.after } : {}),
          lag_ms: Date.now() - item.fired,
        }),
    });
    batches.set(digest, batch);
  }

  for (const [digest, batch] of batches) {
    const outcome = await applyBatch(dirs.sessionsDir, digest, batch.items, {
      stateDir: context.stateDir,
      now: Date.now,
      lockBoundMs: LOCK_BOUND_MS,
      onApplied: (applied, sessionsDir) => {
        const last = applied.at(-1)?.event;
        notifyOnChange(applied, sessionsDir, { stateDir: context.stateDir, env: (last && batch.env.get(last)) ?? context.env });
        context.afterApply?.(sessionsDir, digest);
      },
    });
    if (outcome.ok) {
      done += batch.items.length;
      for (const item of batch.items) stopReader(entryOf(ready, item.path), context);
    } else if (outcome.reason === "busy")
      waiting += batch.items.length; // left queued: the next pass tries again soon
    else log(context, context.env, { outcome: "not applied", detail: outcome.detail, entries: batch.items.length }); // tried again at the next sweep
  }
  return { done, waiting };
}

/** The payload as the pipeline reads stdin, once it is whole (or can be no more whole); undefined while it is coming. */
function payloadOf(item: Queued, context: DrainContext): ReadInput | undefined {
  const { reader } = item.entry;
  if (reader === undefined) return { bytes: Buffer.alloc(0), end: "eof" };
  const state = readerState(reader);
  const read = readSpoolFile(item.payload, LIMITS.stdinBytes + 1);
  const bytes = read.ok ? read.bytes : Buffer.alloc(0);
  if (bytes.length > LIMITS.stdinBytes) return { bytes: bytes.subarray(0, LIMITS.stdinBytes), end: "cap" };
  if (state === "gone") return { bytes, end: "eof" };
  // The harness still holds stdin open: enough once the JSON value is whole, as the synchronous hook stops reading.
  const scanner = newNativeScanner();
  if (bytes.length > 0 && scanner.feed(bytes, bytes.length) !== "more") return { bytes, end: "enough", scanner };
  const waited = Date.now() - item.fired;
  if (waited < INPUT_BOUND_MS) return undefined;
  // The bound is on the harness, not on the machine: a copy that waits for a CPU (runnable, or in the disk's hands) on
  // a loaded machine has not yet read what the harness wrote, and is waited for (within ABANDONED_MS); only a copy
  // that sleeps, blocked on a pipe the harness holds open without writing, is cut at the bound.
  if (state === "busy" && waited < ABANDONED_MS) return undefined;
  context.stopReader?.(reader);
  return { bytes, end: "deadline" };
}

/**
 * The process copying stdin (the same process: its start time, not a later one with its PID): gone (exited, a zombie),
 * busy (running or runnable, or in uninterruptible I/O), or blocked (sleeping: on an empty pipe; or stopped).
 */
function readerState(reader: NonNullable<ShimEntry["reader"]>): "gone" | "busy" | "blocked" {
  if (reader.start === undefined) return "gone"; // gone before its shim looked
  try {
    const stat = readFileSync(`/proc/${reader.pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[19] !== reader.start || fields[0] === "Z" || fields[0] === "X") return "gone";
    return fields[0] === "R" || fields[0] === "D" ? "busy" : "blocked";
  } catch {
    return "gone";
  }
}

/** Is the process copying stdin still running? */
function readerAlive(reader: NonNullable<ShimEntry["reader"]>): boolean {
  return readerState(reader) !== "gone";
}

function stopReader(entry: ShimEntry | undefined, context: DrainContext): void {
  const reader = entry?.reader;
  if (reader && readerAlive(reader)) (context.stopReader ?? killReader)(reader);
}

/** The harness held its end of stdin open past what we needed: the copy stops (its write then fails, as for any hook). */
function killReader(reader: NonNullable<ShimEntry["reader"]>): void {
  try {
    if (readerAlive(reader)) process.kill(reader.pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}

function entryOf(ready: readonly { queued: Queued }[], path: string): ShimEntry | undefined {
  return ready.find((item) => item.queued.path === path)?.queued.entry;
}

/** The two nearest ancestors of the shim, as PID and start time: entries that share one come from one harness process. */
function relatives(entry: ShimEntry): string[] {
  return entry.chain.slice(1, 3).map((pid) => {
    const stat = entry.stats.get(pid) ?? "";
    return `${pid}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? ""}`;
  });
}

/** The drainer's environment with the allowlisted part replaced by what the event's shim captured. */
export function eventEnv(base: NodeJS.ProcessEnv, captured: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const key of HOOK_ENV_KEYS) {
    if (Object.hasOwn(captured, key)) env[key] = captured[key];
    else delete env[key];
  }
  return env;
}

/** Remove an entry (and its payload) that will never be applied, saying why in the debug log; counts 1. */
function drop(context: DrainContext, paths: readonly string[], outcome: HookOutcome, name: string, entry?: ShimEntry): number {
  log(context, entry ? eventEnv(context.env, entry.env) : context.env, { argv: entry?.argv ?? [], entry: name, ...outcome });
  for (const path of paths) remove(path);
  return 1;
}

function log(context: DrainContext, env: NodeJS.ProcessEnv, entry: Record<string, unknown>): void {
  if (debugEnabled(env)) appendDebugLog(context.stateDir, { drainer: true, ...entry });
}

function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function olderThan(path: string, ms: number): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats !== undefined && Date.now() - stats.mtimeMs > ms;
}
