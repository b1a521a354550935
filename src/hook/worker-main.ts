// Entry point of the hook worker: the Node half of the hook shim (bin/tongs-agents-hook.sh), started detached with the
// path of the event it spooled. The agent no longer waits for it, but it keeps the hook's rules: it applies events in
// the order the harness spawned their hooks (it waits, bounded, for every earlier entry to be gone first), identity
// comes from the process stat lines the shim captured before returning, and it never prints (docs/contract.md).
import { readFileSync, unlinkSync, utimesSync } from "node:fs";
import { basename, dirname } from "node:path";
import { appendDebugLog, debugEnabled } from "./debug-log.ts";
import { LIMITS } from "../core/bounds.ts";
import { checkPrivateDir, resolveStateDir } from "../store/paths.ts";
import { queueNow } from "../store/transaction.ts";
import { capturedProcessSource, firedAt, readShimEntry, scanSpool } from "./shim-entry.ts";
import { runHook, type HookOutcome, type HookProgress } from "./pipeline.ts";
import { INPUT_BOUND_MS, LOCK_BOUND_MS, SCAN_BOUND_MS, SCRIPT_SCAN_BOUND_MS, WORK_BOUND_MS } from "./bounds.ts";
import { newNativeScanner, type ReadInput } from "./input.ts";
import { readStdin } from "./read-stdin.ts";

/** An earlier entry not touched for this long has no live worker (see the heartbeat below). */
export const ORDER_STALE_MS = 10_000;
/** The longest a worker waits for the events spawned before its own. */
export const ORDER_CAP_MS = 30_000;
const HEARTBEAT_MS = 1000;
/**
 * An entry older than this was abandoned (its worker never ran, or died): it is not waited for, and it is removed. A
 * live worker reads its own entry within seconds even on a machine under heavy load.
 */
const ABANDONED_MS = 60_000;
const SPOOL_AGES = { staleMs: ORDER_STALE_MS, abandonedMs: ABANDONED_MS };
const POLL_MS = 4;

const quit = () => process.exit(0);
process.removeAllListeners("warning");
process.on("uncaughtException", quit);
process.on("unhandledRejection", quit);
// Detached from the harness's terminal already (setsid); where setsid was missing, a hangup must not stop the work.
process.on("SIGHUP", () => undefined);

const stateDir = resolveStateDir(process.env);
const debug = debugEnabled(process.env);
const [entryPath = "", ...argv] = process.argv.slice(2);
const progress: HookProgress = {};

const unlinkQuietly = (path: string): boolean => {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false; // already gone
  }
};
const removeEntry = () => unlinkQuietly(entryPath);
const touch = (path: string) => {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // gone: nothing to keep alive
  }
};
const log = (entry: Record<string, unknown>) => {
  if (debug) appendDebugLog(stateDir, { argv, worker: true, since_process_start_ms: Math.round(performance.now()), ...entry });
};

let watchdog = setTimeout(
  () => {
    const saved = progress.event !== undefined && !progress.settled && queueNow(progress.event, stateDir);
    log({ outcome: "timeout", action: progress.settled || saved ? "deferred" : "lost", phase: progress.phase ?? "waiting for order" });
    removeEntry();
    quit();
  },
  INPUT_BOUND_MS + ORDER_CAP_MS + WORK_BOUND_MS,
);
watchdog.unref();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The payload: the shim handed its stdin over unread; read with the hook's cap and time bound. */
async function readInput(): Promise<ReadInput> {
  const scanner = newNativeScanner();
  const read = await readStdin({
    maxBytes: LIMITS.stdinBytes,
    deadline: Date.now() + INPUT_BOUND_MS,
    enough: (bytes, length) => scanner.feed(bytes, length) !== "more",
  });
  return { ...read, scanner };
}

async function main(): Promise<void> {
  const input = await readInput();
  // Only an entry in a private spool of ours is read (the shim refuses a symlinked spool; this checks owner and mode).
  if (!checkPrivateDir(dirname(entryPath)).ok)
    return log({ ok: false, stage: "input", detail: "spool is not a private directory of ours" });
  // Each worker keeps its entry's modification time fresh while it waits (a heartbeat), so an earlier entry is waited
  // for while it is young or its worker is alive; one left untouched for ORDER_STALE_MS has no live worker (it died,
  // or never started) and is passed over. Every waiting worker judges it by the same clock, so they agree.
  const cap = Date.now() + ORDER_CAP_MS;
  let beat = 0;
  let earlier = scanSpool(entryPath, SPOOL_AGES).earlier;
  const waited = earlier.length;
  while (earlier.length > 0 && Date.now() < cap) {
    if (Date.now() - beat >= HEARTBEAT_MS) {
      beat = Date.now();
      touch(entryPath);
    }
    await sleep(POLL_MS);
    earlier = scanSpool(entryPath, SPOOL_AGES).earlier;
  }
  // An entry whose worker never ran is not applied by us: its event needs the environment its own worker inherits.
  for (const path of scanSpool(entryPath, SPOOL_AGES).abandoned)
    if (unlinkQuietly(path)) log({ outcome: "abandoned", action: "lost", entry: basename(path) });
  clearTimeout(watchdog);
  watchdog = setTimeout(quit, WORK_BOUND_MS);
  watchdog.unref();
  const read = readShimEntry(entryPath, 64 * 1024);
  if (!read.ok) {
    removeEntry();
    return log({ ok: false, stage: "input", detail: read.detail });
  }
  const { entry } = read;
  const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  // The event's clock runs from when the harness fired the hook, not from now (shim-entry.ts, firedAt).
  const uptimeSeconds = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  const fired = firedAt(entry, { uptimeSeconds });
  const lag = fired === undefined ? 0 : Math.max(0, Date.now() - fired);
  const outcome: HookOutcome = await runHook(argv, input, {
    env: process.env,
    ppid: entry.ppid,
    pid: entry.pid,
    processes: capturedProcessSource(entry.stats, { bootId }),
    stateDir,
    now: () => Date.now() - lag,
    scanBoundMs: SCAN_BOUND_MS,
    scriptScanBoundMs: SCRIPT_SCAN_BOUND_MS,
    lockBoundMs: LOCK_BOUND_MS,
    progress,
  }).catch((error: unknown) => ({ ok: false, stage: "store", detail: String(error) }) as const);
  // Logged before the entry goes, so the log's order is the order events were applied in (the next worker waits).
  log({ ...outcome, event: progress.event?.eventId, entry: basename(entryPath), waited_for: waited, still_earlier: earlier.length });
  removeEntry();
}

void main().then(quit, quit);
