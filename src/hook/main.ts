// Entry point of `tongs-agents-hook`. Fail-open: whatever happens, exit 0, print nothing, and give up within its
// bounds. Keep this file's import graph small (a test checks the bundle's inputs).
import { appendDebugLog, debugEnabled } from "./debug-log.ts";
import { LIMITS } from "../core/bounds.ts";
import { defaultProcessSource } from "../core/proc.ts";
import { resolveStateDir } from "../store/paths.ts";
import { queueNow } from "../store/transaction.ts";
import { newNativeScanner, type ReadInput } from "./input.ts";
import { runHook, type HookProgress } from "./pipeline.ts";
import { INPUT_BOUND_MS, LOCK_BOUND_MS, SCAN_BOUND_MS, SCRIPT_SCAN_BOUND_MS, WORK_BOUND_MS } from "./bounds.ts";
import { readStdin, type StdinSource } from "./read-stdin.ts";

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
    appendDebugLog(stateDir, {
      argv,
      outcome: "timeout",
      action: progress.settled || saved ? "deferred" : "lost",
      detail: `gave up after ${bound} ms`,
      ...where,
    });
  }
  quit();
};
// The reader returns by INPUT_BOUND_MS whatever stdin does (read-stdin.ts); this is the last resort if it did not.
let watchdog = setTimeout(giveUp(INPUT_BOUND_MS + WORK_BOUND_MS), INPUT_BOUND_MS + WORK_BOUND_MS);
watchdog.unref();

/** Read stdin up to its cap and time bound, stopping as soon as the JSON object is complete (or cannot be JSON). */
async function readInput(): Promise<ReadInput & { source: StdinSource }> {
  const scanner = newNativeScanner();
  const read = await readStdin({
    maxBytes: LIMITS.stdinBytes,
    deadline: started + INPUT_BOUND_MS,
    enough: (bytes, length) => scanner.feed(bytes, length) !== "more",
  });
  return { ...read, scanner };
}

async function main(): Promise<void> {
  const input = await readInput();
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
    scriptScanBoundMs: SCRIPT_SCAN_BOUND_MS,
    lockBoundMs: LOCK_BOUND_MS,
    progress,
  }).catch((error: unknown) => ({ ok: false, stage: "bug", detail: String(error) }));
  if (debug) {
    const elapsed = {
      elapsed_ms: Math.round(Date.now() - started),
      since_process_start_ms: Math.round(Date.now() - performance.timeOrigin),
    };
    appendDebugLog(stateDir, { argv, ...elapsed, input: { bytes: input.bytes.length, end: input.end, source: input.source }, ...outcome });
  }
  quit();
}

void main();
