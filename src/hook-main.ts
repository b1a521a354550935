// Entry point of `tongs-agents-hook`. Fail-open: whatever happens, exit 0, print nothing, and give up within
// EXIT_BOUND_MS of process start. Keep this file's import graph small (a test checks the bundle's inputs).
import { appendDebugLog, debugEnabled } from "./debug-log.ts";
import { LIMITS } from "./bounds.ts";
import { runHook, type HookInput } from "./hook.ts";
import { resolveStateDir } from "./paths.ts";
import { defaultProcessSource } from "./proc.ts";

/**
 * Budgets, measured from when this module starts running (docs/contract.md, "Fail-open"). Node's own start-up is not
 * ours to bound: under CPU contention (dozens of hooks at once on two cores) it alone can take longer than a second.
 */
export const SCAN_BOUND_MS = 150;
export const LOCK_BOUND_MS = 650;
export const EXIT_BOUND_MS = 900;

const quit = () => process.exit(0);
process.removeAllListeners("warning");
process.on("uncaughtException", quit);
process.on("unhandledRejection", quit);

const started = Date.now();
const stateDir = resolveStateDir(process.env);
const debug = debugEnabled(process.env);
const argv = process.argv.slice(2);

const watchdog = setTimeout(() => {
  if (debug) void appendDebugLog(stateDir, { argv, outcome: "timeout", detail: `gave up after ${EXIT_BOUND_MS} ms` }).finally(quit);
  else quit();
}, Math.max(0, started + EXIT_BOUND_MS - Date.now()));
watchdog.unref();

function readStdin(maxBytes: number): Promise<HookInput> {
  if (process.stdin.isTTY) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        process.stdin.destroy();
        resolve({ tooLarge: true });
      } else chunks.push(chunk);
    });
    process.stdin.on("end", () => resolve(Buffer.concat(chunks)));
    process.stdin.on("error", () => resolve(Buffer.concat(chunks)));
  });
}

const input = await readStdin(LIMITS.inputBytes);
const outcome = await runHook(argv, input, {
  env: process.env,
  ppid: process.ppid,
  processes: defaultProcessSource(),
  stateDir,
  now: Date.now,
  scanBoundMs: SCAN_BOUND_MS,
  lockBoundMs: LOCK_BOUND_MS,
}).catch((error: unknown) => ({ ok: false, stage: "bug", detail: String(error) }));
if (debug) {
  const elapsed = { elapsed_ms: Math.round(Date.now() - started), since_process_start_ms: Math.round(Date.now() - performance.timeOrigin) };
  await appendDebugLog(stateDir, { argv, ...elapsed, ...outcome });
}
quit();
