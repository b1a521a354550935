// @ts-check
// tongs-agents bridge for Pi: reports Pi's lifecycle to `tongs-agents-hook fleet-event --agent pi` as the normalized
// payload (docs/contract.md). Loaded inside the Pi process, so it must never block or break Pi: every handler is
// wrapped, delivery runs in the background (lib/sender.js), and only session_shutdown waits, for a bounded time.
// Dependency-free on purpose: a local Pi package is loaded in place and nothing is installed for it.
import { spawn as spawnChild } from "node:child_process";
import { randomUUID } from "node:crypto";
import { locateHook, locateNode, moduleDirectory, shimBeside } from "./lib/locate.js";
import { PI_EVENTS, createMapper } from "./lib/map.js";
import { createSender } from "./lib/sender.js";
import { normalizedPayload } from "./lib/payload.js";
import { LIMITS, acceptableText } from "./lib/text.js";

/** How long session_shutdown may hold Pi's exit while queued events reach the hook. */
export const SHUTDOWN_WAIT_MS = 2500;

const SHARED_KEY = Symbol.for("tongs-agents.pi-bridge.v1");

/**
 * @typedef {import("./lib/map.js").Transition} Transition
 * @typedef {import("./lib/sender.js").HookCommand} HookCommand
 * @typedef {import("./lib/sender.js").SpawnLike} SpawnLike
 * @typedef {{ instanceId: string, sequence: number, sender?: ReturnType<typeof createSender>,
 *   command?: HookCommand, commandProblem?: string, capabilities?: { settled: boolean } }} SharedState
 * @typedef {{ on(event: string, handler: (event: unknown, ctx: unknown) => unknown): unknown }} PiLike
 * @typedef {{
 *   env?: NodeJS.ProcessEnv, pid?: number, execPath?: string, versions?: Record<string, string | undefined>,
 *   bridgeDir?: string, spawn?: SpawnLike, shared?: SharedState, maxQueue?: number, sendTimeoutMs?: number,
 *   shutdownWaitMs?: number, fallbackCwd?: () => string, locate?: typeof locateHook,
 * }} BridgeOptions
 */

/**
 * One instance token, sequence counter, delivery queue and set of learned capabilities per Pi process. Pi loads its
 * extensions again for every session switch and /reload; the sequence must keep increasing and deliveries must stay in
 * one line across those.
 * @returns {SharedState}
 */
function processState() {
  const holder = /** @type {Record<symbol, SharedState | undefined>} */ (/** @type {unknown} */ (globalThis));
  return (holder[SHARED_KEY] ??= { instanceId: randomUUID(), sequence: 0 });
}

/** @param {unknown} value @returns {Record<string, any>} */
const object = (value) => (typeof value === "object" && value !== null ? /** @type {Record<string, any>} */ (value) : {});

/**
 * Read a value from Pi's context without letting a missing or throwing accessor escape.
 * @template T
 * @param {() => T} read
 * @returns {T | undefined}
 */
function safely(read) {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * Subscribe the bridge to Pi's events. Exported for tests, which pass a fake `pi` and inject the world.
 * @param {PiLike} pi
 * @param {BridgeOptions} [options]
 */
export function attachBridge(pi, options = {}) {
  const {
    env = process.env,
    pid = process.pid,
    execPath = process.execPath,
    versions = process.versions,
    bridgeDir = moduleDirectory(import.meta.url),
    spawn = /** @type {SpawnLike} */ (/** @type {unknown} */ (spawnChild)),
    shared = processState(),
    maxQueue,
    sendTimeoutMs,
    shutdownWaitMs = SHUTDOWN_WAIT_MS,
    fallbackCwd = () => process.cwd(),
    locate = locateHook,
  } = options;

  /** Resolve the hook once per process; a failed lookup is retried at the next session start. */
  const resolveCommand = () => {
    if (shared.command || shared.commandProblem) return shared.command;
    const hook = locate({ env, bridgeDir });
    const node = locateNode({ env, execPath, versions });
    if (!hook.ok) shared.commandProblem = hook.reason;
    else if (!node) shared.commandProblem = "no Node.js to run the hook";
    else shared.command = { node, hook: hook.path, shim: shimBeside(hook.path) };
    return shared.command;
  };
  const sender = (shared.sender ??= createSender({ agent: "pi", command: resolveCommand, spawn, env, maxQueue, sendTimeoutMs }));
  const mapper = createMapper({ capabilities: (shared.capabilities ??= { settled: false }) });
  /** Last known session, for events whose context cannot tell (e.g. during teardown). */
  const session = { id: /** @type {string | undefined} */ (undefined), cwd: /** @type {string | undefined} */ (undefined) };
  /** @type {Transition | undefined} */
  let lastSent;

  /** @param {unknown} ctx */
  const observeContext = (ctx) => {
    const context = object(ctx);
    const manager = object(context.sessionManager);
    const id = acceptableText(
      safely(() => manager.getSessionId?.()),
      LIMITS.idBytes,
    );
    if (id) session.id = id;
    const cwd =
      acceptableText(
        safely(() => context.cwd),
        LIMITS.cwdBytes,
      ) ??
      acceptableText(
        safely(() => manager.getCwd?.()),
        LIMITS.cwdBytes,
      );
    if (cwd) session.cwd = cwd;
  };

  /** @param {Transition} next */
  const send = (next) => {
    const boundary = next.event === "session-start" || next.event === "session-shutdown";
    const same = lastSent && lastSent.status === next.status && lastSent.detail === next.detail && lastSent.tool === next.tool;
    if (same && !boundary) return; // nothing the record would show differently; spare a process
    if (!session.id) return; // no session id from Pi: nothing to attribute the event to
    const cwd = session.cwd ?? acceptableText(safely(fallbackCwd), LIMITS.cwdBytes);
    if (!cwd) return;
    lastSent = next;
    shared.sequence += 1;
    sender.enqueue(
      normalizedPayload({
        harness: "pi",
        event: next.event,
        sessionId: session.id,
        instanceId: shared.instanceId,
        sequence: shared.sequence,
        pid,
        cwd,
        status: next.status,
        detail: next.detail,
        tool: next.tool,
      }),
      { pinned: boundary },
    );
  };

  /**
   * @param {string} name
   * @param {unknown} event
   * @param {unknown} ctx
   */
  const handle = (name, event, ctx) => {
    try {
      if (name === "session_start") {
        lastSent = undefined;
        shared.commandProblem = undefined; // the hook may have been installed since
      }
      observeContext(ctx);
      const next = mapper.map(name, event);
      if (next) send(next);
      if (name === "session_shutdown")
        return sender.flush(shutdownWaitMs).then(
          () => undefined,
          () => undefined,
        );
    } catch {
      // Never throw into Pi.
    }
    return undefined;
  };

  for (const name of PI_EVENTS) pi.on(name, (event, ctx) => handle(name, event, ctx));
  return { mapper, sender, shared };
}

/**
 * The extension's entry point, called by Pi's loader with the extension API.
 * @param {PiLike} pi
 */
export default function tongsAgentsBridge(pi) {
  try {
    attachBridge(pi);
  } catch {
    // A broken bridge must not stop Pi from starting.
  }
}
