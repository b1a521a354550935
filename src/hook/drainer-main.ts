// Entry point of the drainer (bin/tongs-agents-drainer.cjs <state dir>): the one resident process per state dir that
// applies what the hook shim queues (drainer.ts). Started on demand, detached, by the first hook that finds none
// running (or by a reader that finds events queued and none running); it names itself in `<state>/drainer.pid` (PID
// and start time, so a later process with its PID is not taken for it), wakes on a change in the queue directory
// (inotify), and exits after a while with nothing queued. Safe to kill at any instruction: the queue on disk is the
// truth, and the next hook or reader starts another. Two at once (a race at start-up, one stopped and woken later) are
// safe too, only wasteful: one that finds another named in drainer.pid leaves.
import { readFileSync, renameSync, unlinkSync, watch, writeFileSync, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { appendDebugLog, debugEnabled } from "./debug-log.ts";
import { checkPrivateDir, ensurePrivateDir, sessionsDirOf } from "../store/paths.ts";
import { uniqueSuffix } from "../store/records.ts";
import { ABANDONED_MS, drainPass } from "./drainer.ts";
import { sweepLockStaging } from "../store/record-lock.ts";
import { RACY_MS, openRecordCache } from "../store/record-cache.ts";
import { listRecords } from "../store/records.ts";
import { SHIM_SPOOL_DIR } from "./shim-entry.ts";
import { markShimCopier } from "./shim-copier.ts";
import { DRAINER_PID_FILE, liveStartTime, namedDrainer } from "../store/drainer-process.ts";
import { statusRefresher } from "./status-refresh.ts";

/** With nothing queued for this long, the drainer exits (a hook starts the next one). */
const IDLE_EXIT_MS = 120_000;
/** While an entry waits for its payload or a busy record, the queue is looked at again this often. */
const RETRY_MS = 5;
/** A pass now and then whatever inotify says (a missed event, a full inotify queue), and the name checked. */
const SWEEP_MS = 1000;
/** How long the last passes before an exit may wait for what is still coming: the input bound and a stale lock's. */
const FINISH_MS = 5000;
/** Changes within this long of each other are taken in one pass (a batch), so a burst costs a few passes. */
const GATHER_MS = 2;

const stateDir = process.argv[2] ?? "";
const quit = (code = 0) => process.exit(code);
process.removeAllListeners("warning");
process.on("uncaughtException", (error) => {
  log({ outcome: "crashed", detail: String(error) });
  quit(0);
});
process.on("unhandledRejection", (error) => {
  log({ outcome: "crashed", detail: String(error) });
  quit(0);
});
process.on("SIGHUP", () => undefined);

function log(entry: Record<string, unknown>): void {
  if (debugEnabled(process.env) && stateDir !== "") appendDebugLog(stateDir, { drainer: true, ...entry }, "drainer.log");
}

const pidFile = join(stateDir, DRAINER_PID_FILE);
const me = `${process.pid} ${liveStartTime(process.pid) ?? ""}`;

/** The drainer drainer.pid names, if it is alive: "me", "other", or undefined (none, or a dead one). */
function named(): "me" | "other" | undefined {
  const name = namedDrainer(stateDir);
  return name === undefined ? undefined : name === me ? "me" : "other";
}

function claim(): void {
  const temp = `${pidFile}.${uniqueSuffix()}.tmp`;
  writeFileSync(temp, `${me}\n`, { mode: 0o600 });
  renameSync(temp, pidFile);
}

function unclaim(): void {
  if (named() === "me") {
    try {
      unlinkSync(pidFile);
    } catch {
      // gone already
    }
  }
}

const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
const uptimeSeconds = () => Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
// The tmux servers showing our segment redraw it as soon as a state changes (status-refresh.ts).
const statusSegments = statusRefresher(stateDir, { log });
const context = { stateDir, env: process.env, bootId, uptimeSeconds, afterApply: statusSegments.afterApply };

let running = false;
let again = false;
let timer: NodeJS.Timeout | undefined;
let lastWork = Date.now();
/** Records were written since the validated-record cache was last made whole (refreshCache). */
let cacheStale = true;

/** Run a pass now, or right after the one running; then again soon while something waits. */
function schedule(delay: number): void {
  if (timer !== undefined) return;
  timer = setTimeout(() => {
    timer = undefined;
    void pass();
  }, delay);
}

async function pass(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    const result = await drainPass(context);
    if (result.done > 0 || result.waiting > 0) lastWork = Date.now();
    if (result.done > 0) cacheStale = true;
    if (result.waiting > 0) schedule(RETRY_MS);
  } finally {
    running = false;
  }
  if (again) {
    again = false;
    schedule(0);
  }
}

async function main(): Promise<void> {
  if (stateDir === "" || !checkPrivateDir(stateDir).ok) return quit(0);
  if (named() === "other") return quit(0);
  claim();
  const spool = join(stateDir, SHIM_SPOOL_DIR);
  if (!ensurePrivateDir(spool).ok) return quit(0);
  markShimCopier(spool);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(spool, { persistent: true }, () => schedule(GATHER_MS));
    watcher.on("error", () => undefined);
  } catch {
    // no inotify: the sweep alone drains, once a second
  }
  log({ outcome: "started" });
  let sweeps = 0;
  await pass();
  const sweep = setInterval(() => {
    if (!checkPrivateDir(stateDir).ok) quit(0); // the state dir is gone (removed by the user, or a test's sandbox)
    if (named() !== "me") {
      // Another drainer took over the name (two started at once): it drains from now on.
      clearInterval(sweep);
      watcher?.close();
      void finish("replaced");
      return;
    }
    if (Date.now() - lastWork > IDLE_EXIT_MS && !running) {
      clearInterval(sweep);
      watcher?.close();
      // Unnamed first, then a last pass: a hook that queued before it read drainer.pid is seen by that pass; one that
      // read it after starts the next drainer.
      unclaim();
      void finish("idle");
      return;
    }
    // The directory quiet for longer than the racy window: the cache made to stand for all of it, for the readers.
    if (cacheStale && !running && Date.now() - lastWork > RACY_MS + SWEEP_MS) {
      cacheStale = false;
      refreshCache();
    }
    // What killed lock holders left (record-lock.ts), now and then.
    if (++sweeps % 60 === 0) sweepLockStaging(sessionsDirOf(stateDir), { olderThanMs: ABANDONED_MS });
    schedule(0);
  }, SWEEP_MS);
}

/** A listing through the validated-record cache, saved: readers then read no record file (record-cache.ts, whole). */
function refreshCache(): void {
  const sessionsDir = sessionsDirOf(stateDir);
  const cache = openRecordCache(stateDir, { sessionsDir });
  cache.save(listRecords(sessionsDir, Date.now(), cache));
}

/** The last passes: until nothing waits (an entry's payload, a busy record), within the bound of the longest wait. */
async function finish(why: string): Promise<void> {
  while (running) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  const until = Date.now() + FINISH_MS;
  let last = await drainPass(context);
  while (last.waiting > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    last = await drainPass(context);
  }
  await statusSegments.idle();
  log({ outcome: "exit", why, last_pass: last });
  quit(0);
}

void main();
