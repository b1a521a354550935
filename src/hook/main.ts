// Entry point of `tongs-agents-hook`. Fail-open: whatever happens, exit 0, print nothing, and give up within its
// bounds. Keep this file's import graph small (a test checks the bundle's inputs).
import { fstatSync, read } from "node:fs";
import { appendDebugLog, debugEnabled } from "./debug-log.ts";
import { LIMITS } from "../core/bounds.ts";
import { runHook, type HookInput, type HookProgress } from "./pipeline.ts";
import { queueNow } from "../store/transaction.ts";
import { resolveStateDir } from "../store/paths.ts";
import { defaultProcessSource } from "../core/proc.ts";

/**
 * Budgets (docs/contract.md, "Fail-open"). The harness writes the event and closes stdin at once; waiting longer for
 * it only happens when the machine is overloaded, and then a late event is worth more than a dropped one, so the input
 * has its own bound. From the moment the input is read, the work (scan, lock, write) has WORK_BOUND_MS. Node's own
 * start-up is not ours to bound: under heavy CPU contention it alone can take longer than a second.
 */
export const INPUT_BOUND_MS = 2000;
export const SCAN_BOUND_MS = 150;
export const LOCK_BOUND_MS = 650;
export const WORK_BOUND_MS = 900;

const quit = () => process.exit(0);
process.removeAllListeners("warning");
process.on("uncaughtException", quit);
process.on("unhandledRejection", quit);

const started = Date.now();
const stateDir = resolveStateDir(process.env);
const debug = debugEnabled(process.env);
const argv = process.argv.slice(2);

const progress: HookProgress = {};
const giveUp = (bound: number) => () => {
  // An event that was validated and identified but not yet queued is queued now (a few synchronous writes), so giving
  // up loses nothing that could be kept; the next lock holder applies it.
  const saved = progress.event !== undefined && !progress.settled && queueNow(progress.event, stateDir);
  if (debug) {
    const where = { phase: progress.phase ?? "reading input", since_process_start_ms: Math.round(Date.now() - performance.timeOrigin) };
    appendDebugLog(stateDir, { argv, outcome: "timeout", action: progress.settled || saved ? "deferred" : "lost", detail: `gave up after ${bound} ms`, ...where });
  }
  quit();
};
let watchdog = setTimeout(giveUp(INPUT_BOUND_MS), INPUT_BOUND_MS);
watchdog.unref();

function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true; // no stdin at all: nothing to read either
  }
}

/**
 * Read fd 0 with plain fs reads (in the thread pool, so the watchdog still fires if the writer never closes it):
 * `process.stdin` would load the net and stream machinery, a large share of a hook's start-up.
 */
function readStdin(maxBytes: number): Promise<HookInput> {
  // A terminal (someone running the hook by hand) has nothing to say; node:tty would load net, so ask fstat.
  if (isCharacterDevice(0)) return Promise.resolve(Buffer.alloc(0));
  const buffer = Buffer.alloc(maxBytes + 1);
  return new Promise((resolve) => {
    const next = (length: number) =>
      read(0, buffer, length, buffer.length - length, null, (error, bytesRead) => {
        if (error?.code === "EAGAIN") setTimeout(() => next(length), 5);
        else if (error || bytesRead === 0) resolve(buffer.subarray(0, length));
        else if (length + bytesRead > maxBytes) resolve({ tooLarge: true });
        else next(length + bytesRead);
      });
    next(0);
  });
}

async function main(): Promise<void> {
  const input = await readStdin(LIMITS.inputBytes);
  clearTimeout(watchdog);
  watchdog = setTimeout(giveUp(WORK_BOUND_MS), WORK_BOUND_MS);
  watchdog.unref();
  const outcome = await runHook(argv, input, {
    env: process.env,
    ppid: process.ppid,
    processes: defaultProcessSource(),
    stateDir,
    now: Date.now,
    scanBoundMs: SCAN_BOUND_MS,
    lockBoundMs: LOCK_BOUND_MS,
    progress,
  }).catch((error: unknown) => ({ ok: false, stage: "bug", detail: String(error) }));
  if (debug) {
    const elapsed = { elapsed_ms: Math.round(Date.now() - started), since_process_start_ms: Math.round(Date.now() - performance.timeOrigin) };
    appendDebugLog(stateDir, { argv, ...elapsed, ...outcome });
  }
  quit();
}

void main();
