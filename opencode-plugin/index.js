// @ts-check
// tongs-agents plugin for OpenCode: reports every session of the OpenCode process it runs in to
// `tongs-agents-hook fleet-event --agent opencode` as the normalized payload (docs/contract.md), with this process's
// PID, an instance token and a sequence (emitter identity, like the Pi bridge). OpenCode loads plugins inside its own
// process, so nothing here may block or break it: every handler is wrapped, delivery runs in the background through the
// Pi bridge's sender. Nothing is sent at exit: OpenCode 1.18.33 fires no event on /exit and a plugin's process exit
// listeners never run (probed live), so an exited session is shown ended by liveness (its PID is gone), not by a write.
// The installer writes a small module into OpenCode's plugin directory that imports createPlugin from here
// (src/harnesses/opencode/install.ts).
import { spawn as spawnChild } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { locateHook, locateNode, moduleDirectory, shimBeside } from "../pi-bridge/lib/locate.js";
import { normalizedPayload } from "../pi-bridge/lib/payload.js";
import { createSender } from "../pi-bridge/lib/sender.js";
import { LIMITS, acceptableText } from "../pi-bridge/lib/text.js";
import { createAnswerChannel, REQUESTS_DIR, stateDirOf } from "./answer-channel.js";
import { createMapper } from "./map.js";

export const HARNESS = "opencode";

const SHARED_KEY = Symbol.for("tongs-agents.opencode-plugin.v1");

/**
 * @typedef {import("./map.js").Transition} Transition
 * @typedef {import("../pi-bridge/lib/sender.js").HookCommand} HookCommand
 * @typedef {import("../pi-bridge/lib/sender.js").SpawnLike} SpawnLike
 * @typedef {{ node?: string, hook?: string }} InstalledPaths what the installer recorded (absolute paths)
 * @typedef {{
 *   env?: NodeJS.ProcessEnv, pid?: number, execPath?: string, versions?: Record<string, string | undefined>,
 *   pluginDir?: string, spawn?: SpawnLike, locate?: typeof locateHook, instanceId?: string, maxQueue?: number,
 *   sendTimeoutMs?: number, answerDir?: string | false,
 * }} PluginOptions  `answerDir`: where `tongs-agents answer` leaves replies (default under the state dir; false: none)
 */

/** @param {unknown} value @returns {Record<string, any>} */
const object = (value) => (typeof value === "object" && value !== null ? /** @type {Record<string, any>} */ (value) : {});

/**
 * The plugin's state for one OpenCode process. OpenCode may initialise a plugin more than once in a process (once per
 * project instance); every instance shares one sequence and one delivery line, or sequences would go backwards.
 * @param {PluginOptions} options
 * @param {InstalledPaths} installed
 */
function processState(options, installed) {
  const holder = /** @type {Record<symbol, ReturnType<typeof createEmitter> | undefined>} */ (/** @type {unknown} */ (globalThis));
  return (holder[SHARED_KEY] ??= createEmitter(options, installed));
}

/**
 * Everything one OpenCode process needs: the mapper and the sender. Exported for tests.
 * @param {PluginOptions} options
 * @param {InstalledPaths} [installed]
 */
export function createEmitter(options = {}, installed = {}) {
  const {
    env = process.env,
    pid = process.pid,
    execPath = process.execPath,
    versions = process.versions,
    pluginDir = moduleDirectory(import.meta.url),
    spawn = /** @type {SpawnLike} */ (/** @type {unknown} */ (spawnChild)),
    locate = locateHook,
    instanceId = randomUUID(),
    maxQueue,
    sendTimeoutMs,
    answerDir = join(stateDirOf(env), REQUESTS_DIR),
  } = options;
  const mapper = createMapper();
  /** @type {{ command?: HookCommand, problem?: string, sequence: number, fallbackCwd?: string }} */
  const state = { sequence: 0 };
  /** @type {Map<string, string>} the last state sent per session, to spare a process for a repeat */
  const lastSent = new Map();

  /** The recorded paths first (an explicit install), then the Pi bridge's lookup beside this directory or on PATH. */
  const resolveCommand = () => {
    if (state.command || state.problem) return state.command;
    const hook = installed.hook ? { ok: /** @type {const} */ (true), path: installed.hook } : locate({ env, bridgeDir: pluginDir });
    const node = installed.node ?? locateNode({ env, execPath, versions });
    if (!hook.ok) state.problem = hook.reason;
    else if (!node) state.problem = "no Node.js to run the hook";
    else state.command = { node, hook: hook.path, shim: shimBeside(hook.path) };
    return state.command;
  };
  const sender = createSender({ agent: HARNESS, command: resolveCommand, spawn, env, maxQueue, sendTimeoutMs });

  /** @param {Transition} next @returns {object | undefined} */
  const payloadOf = (next) => {
    const boundary = next.status === "started" || next.status === "ended";
    const key = `${next.status}\0${next.detail}\0${next.tool}`;
    if (!boundary && lastSent.get(next.sessionId) === key) return undefined;
    const cwd = next.cwd ?? state.fallbackCwd;
    if (!cwd) return undefined;
    lastSent.set(next.sessionId, key);
    if (lastSent.size > 256) lastSent.delete(/** @type {string} */ (lastSent.keys().next().value));
    state.sequence += 1;
    return normalizedPayload({
      harness: HARNESS,
      event: next.event,
      sessionId: next.sessionId,
      instanceId,
      sequence: state.sequence,
      pid,
      cwd,
      status: next.status,
      detail: next.detail,
      tool: next.tool,
    });
  };

  /** @param {Transition | undefined} next @returns {number | undefined} the sequence of the payload sent */
  const send = (next) => {
    if (!next) return undefined;
    const payload = /** @type {{ sequence: number } | undefined} */ (payloadOf(next));
    if (payload) sender.enqueue(payload, { pinned: next.status === "started" || next.status === "ended" });
    return payload?.sequence;
  };

  /** @type {{ post: (options: Record<string, unknown>) => Promise<unknown> } | undefined} OpenCode's SDK client, raw */
  let client;
  const answers = answerDir === false ? undefined : createAnswerChannel({ dir: answerDir, instanceId, client: () => client });
  let answersStarted = false;

  /**
   * The answer channel's view of a bus event: which request the record's wait stands for (the waiting payload's
   * sequence), and which requests closed.
   * @param {unknown} event @param {Transition | undefined} next @param {number | undefined} sequence
   */
  const observeRequest = (event, next, sequence) => {
    if (!answers) return;
    const { type, properties } = object(event);
    const props = object(properties);
    if (type === "permission.asked" || type === "question.asked") {
      const session = acceptableText(props.sessionID, LIMITS.idBytes);
      if (!session) return;
      const opened = next?.status === "waiting" ? sequence : undefined;
      answers.asked(mapper.rootOf(session), type === "permission.asked" ? "permission" : "input", props, opened);
    } else if (type === "permission.replied" || type === "question.replied" || type === "question.rejected") {
      answers.replied(props.requestID);
    }
  };

  return {
    mapper,
    sender,
    state,
    /** @param {string | undefined} directory the project directory OpenCode gave the plugin */
    observeDirectory(directory) {
      const cwd = acceptableText(directory, LIMITS.cwdBytes);
      if (cwd) state.fallbackCwd = cwd;
    },
    /** @param {unknown} event */
    event(event) {
      const next = mapper.mapEvent(event);
      if (next?.status === "started") state.problem = undefined; // a failed lookup is tried again at a session start
      observeRequest(event, next, send(next));
    },
    /**
     * The SDK client OpenCode gave the plugin (bound to its own server, in-process): the answer channel replies with it.
     * Its raw HTTP client is used because the SDK's typed methods of 1.18.33 cover neither the current permission
     * reply (with a message) nor questions. Starts the channel's watch, once per process.
     * @param {unknown} sdk
     */
    useClient(sdk) {
      const raw = object(object(sdk)._client);
      if (typeof raw.post === "function") client = /** @type {any} */ (raw);
      if (answers && !answersStarted) answersStarted = answers.start();
    },
    answers,
    /** @param {unknown} input */
    toolStart(input) {
      send(mapper.mapToolStart(input));
    },
  };
}

/**
 * The plugin function OpenCode calls with its context. The installer's module in OpenCode's plugin directory calls
 * this with the paths it recorded; tests pass options to inject the world.
 * @param {InstalledPaths} [installed]
 * @param {PluginOptions} [options]
 */
export function createPlugin(installed = {}, options = {}) {
  /** @param {unknown} ctx */
  return async (ctx) => {
    try {
      const emitter = options.instanceId ? createEmitter(options, installed) : processState(options, installed);
      emitter.observeDirectory(object(ctx).directory);
      emitter.useClient(object(ctx).client);
      return {
        /** @param {{ event?: unknown }} input */
        event: async (input) => {
          try {
            emitter.event(object(input).event);
          } catch {
            // Never throw into OpenCode.
          }
        },
        /** @param {unknown} input */
        "tool.execute.before": async (input) => {
          try {
            emitter.toolStart(input);
          } catch {
            // Never throw into OpenCode.
          }
        },
      };
    } catch {
      return {}; // a broken plugin must not stop OpenCode from starting
    }
  };
}
