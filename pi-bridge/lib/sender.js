// @ts-check
// Delivers payloads to the hook without ever blocking the agent (Pi, or OpenCode through opencode-plugin/): a bounded FIFO queue, one hook process at a time (so
// sequences arrive in order), a bounded wait per hook process (killed past it), and a bounded flush for shutdown.
// Under pressure the oldest intermediate event is dropped; session-start and session-shutdown events are kept, and
// the newest event always is, so the record ends in the latest state.

/** Pending payloads kept at most; past this the oldest droppable one goes. */
export const MAX_QUEUE = 8;
/** A hook process still running after this long is killed (the hook's own watchdog exits it after 900 ms of work). */
export const SEND_TIMEOUT_MS = 5000;

/**
 * @typedef {{ payload: object, pinned: boolean }} Entry
 * @typedef {{ node: string, hook: string, shim?: string }} HookCommand
 * @typedef {{ stdin: { on(event: "error", listener: () => void): unknown, end(data: string): unknown } | null,
 *   on(event: "exit" | "error", listener: () => void): unknown, kill(signal: NodeJS.Signals): unknown }} ChildLike
 * @typedef {(command: string, args: string[], options: Record<string, unknown>) => ChildLike} SpawnLike
 * @typedef {{ enqueued: number, sent: number, dropped: number, failed: number, timedOut: number, skipped: number }} SenderStats
 */

/**
 * @param {{
 *   agent?: string,
 *   command: () => HookCommand | undefined,
 *   spawn: SpawnLike,
 *   env: NodeJS.ProcessEnv,
 *   maxQueue?: number,
 *   sendTimeoutMs?: number,
 *   defer?: (fn: () => void) => void,
 * }} options
 */
export function createSender({
  agent = "pi",
  command,
  spawn,
  env,
  maxQueue = MAX_QUEUE,
  sendTimeoutMs = SEND_TIMEOUT_MS,
  defer = setImmediate,
}) {
  /** @type {Entry[]} */
  const queue = [];
  /** @type {Array<() => void>} */
  let drainedWaiters = [];
  let pumping = false;
  /** @type {SenderStats} */
  const stats = { enqueued: 0, sent: 0, dropped: 0, failed: 0, timedOut: 0, skipped: 0 };

  /**
   * Run one hook process with the payload on stdin; resolves when it exits, fails or is killed. Never rejects.
   * @param {Entry} entry
   * @returns {Promise<void>}
   */
  function deliver(entry) {
    const hook = command();
    if (!hook) {
      stats.skipped += 1;
      return Promise.resolve();
    }
    /** @type {ChildLike} */
    let child;
    try {
      // No shell: the payload is data on stdin, never part of a command line. Nothing reaches Pi's terminal, and the
      // hook runs in its own process group, so a Ctrl+C or hangup aimed at Pi's job does not cut a delivery short
      // (the emitter is the payload's PID: the hook looks it up; through the shim, it is the shim's captured parent).
      // Through the shim where the package has one (it queues the event and returns; no Node process per event),
      // else the hook itself. Either way one process at a time, so the events' spawn order is their order.
      const [file, args] = hook.shim
        ? ["/bin/sh", [hook.shim, hook.node, "fleet-event", "--agent", agent]]
        : [hook.node, [hook.hook, "fleet-event", "--agent", agent]];
      child = spawn(file, args, {
        stdio: ["pipe", "ignore", "ignore"],
        env,
        shell: false,
        detached: true,
        windowsHide: true,
      });
    } catch {
      stats.failed += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let settled = false;
      /** @param {keyof SenderStats} outcome */
      const finish = (outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stats[outcome] += 1;
        resolve();
      };
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
        finish("timedOut");
      }, sendTimeoutMs);
      timer.unref?.();
      child.on("error", () => finish("failed"));
      child.on("exit", () => finish("sent"));
      try {
        child.stdin?.on("error", () => undefined); // EPIPE when the hook exits early
        child.stdin?.end(JSON.stringify(entry.payload));
      } catch {
        // the exit or error event still settles this delivery
      }
    });
  }

  async function pump() {
    if (pumping) return;
    pumping = true;
    try {
      for (let entry = queue.shift(); entry; entry = queue.shift()) await deliver(entry);
    } finally {
      pumping = false;
      const waiters = drainedWaiters;
      drainedWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  return {
    stats,
    /** Pending payloads (not counting the one in flight). */
    get pending() {
      return queue.length;
    },
    get busy() {
      return pumping;
    },
    /**
     * Queue a payload. Returns at once; delivery starts on a later tick.
     * @param {object} payload
     * @param {{ pinned?: boolean }} [options] pinned payloads (session start/shutdown) are never dropped for room
     */
    enqueue(payload, { pinned = false } = {}) {
      if (queue.length >= maxQueue) {
        const droppable = queue.findIndex((entry) => !entry.pinned);
        queue.splice(droppable === -1 ? 0 : droppable, 1);
        stats.dropped += 1;
      }
      queue.push({ payload, pinned });
      stats.enqueued += 1;
      if (!pumping) defer(() => void pump());
    },
    /**
     * Wait until everything queued so far has been delivered, or `timeoutMs` passed. Never rejects.
     * @param {number} timeoutMs
     * @returns {Promise<boolean>} true when drained
     */
    flush(timeoutMs) {
      if (!pumping && queue.length === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        timer.unref?.();
        const wake = () => {
          if (pumping || queue.length > 0) {
            drainedWaiters.push(wake); // more arrived while this waiter slept
            return;
          }
          clearTimeout(timer);
          resolve(true);
        };
        drainedWaiters.push(wake);
        if (!pumping) defer(() => void pump());
      });
    },
  };
}
