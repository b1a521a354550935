// The hook pipeline: validate one event, resolve who sent it, hand it to the store transaction.
// Every rejection happens before the store is touched. Callers (main.ts) turn any outcome into exit code 0.
import { interpretFleetEvent, interpretNative, type Transition } from "../harnesses/events.ts";
import { acceptsEvent, findHarness } from "../harnesses/registry.ts";
import { FLEET_EVENT, type Harness, type HookAlias, type NativeAlias } from "../harnesses/contract.ts";
import { declaredWait, findDeclared, loadDeclaredAgents, type DeclaredAgents } from "../harnesses/declared.ts";
import { fleetPayload, nativePayload, type HookInput } from "./input.ts";
import { existsSync } from "node:fs";
import { canonicalId, digestOf, processInstanceId } from "../core/identity.ts";
import { launchFromEnv } from "../core/launch.ts";
import { findAncestor, withDeadline, type AncestorSearch, type ProcessBasics, type ProcessSource } from "../core/proc.ts";
import { LIMITS, toDisplayLine, truncateBytes } from "../core/bounds.ts";
import {
  FleetEventSchema,
  NativePayloadSchema,
  UNRESOLVED_INSTANCE,
  describeIssue,
  transcriptPathOf,
  type LifecycleEvent,
  type NativePayload,
} from "../core/schema.ts";
import type { Clock } from "../core/clock.ts";
import { notifyOnChange } from "./notify-trigger.ts";
import { applyToStore } from "../store/transaction.ts";
import { sessionsDirOf } from "../store/paths.ts";
import { recordPath } from "../store/records.ts";
import { captureTerminal } from "../core/terminal.ts";
import { spawnOf, type Spawn } from "../core/spawn-order.ts";

export interface HookContext {
  readonly env: NodeJS.ProcessEnv;
  /** Parent of the hook process: where the ancestry walk starts. */
  readonly ppid: number;
  /** The hook process itself (default: this process): spawned by the harness when nothing stands between them. */
  readonly pid?: number;
  readonly processes: ProcessSource;
  readonly stateDir: string;
  readonly now: Clock;
  /** How long the process scan may take before identity counts as unresolved. */
  readonly scanBoundMs: number;
  /**
   * The same for a harness told by the script its node runs (Gemini CLI, Qwen Code): every such event must read the
   * arguments of the processes above it, which under load take longer than the names. Defaults to scanBoundMs.
   */
  readonly scriptScanBoundMs?: number;
  /** How long to wait for a record lock before the event is left queued for the next lock holder. */
  readonly lockBoundMs: number;
  /** Filled in as the hook goes, so a watchdog that fires mid-way can still queue a validated event (hook-main.ts). */
  readonly progress?: HookProgress;
  /** The agents declared in config.json, read only for an id that is not built in (default: the user's file). */
  readonly declared?: (env: NodeJS.ProcessEnv) => DeclaredAgents;
  /** The hook's working directory: a declared agent's session directory when its payload names none. */
  readonly cwd?: string;
}

export interface HookProgress {
  /** Where the hook is, for the debug log when the watchdog fires. */
  phase?: "validating" | "identifying" | "storing";
  /** The validated, identified event, once it exists. */
  event?: LifecycleEvent;
  /** Set once the event is queued or applied: nothing is left to save. */
  settled?: boolean;
}

export type HookOutcome =
  | { ok: true; action: "written" | "skipped" | "ignored" | "deferred"; detail: string; canonicalId?: string }
  | { ok: false; stage: "usage" | "input" | "harness" | "event" | "schema" | "store"; detail: string };

export type { HookInput };

const reject = (stage: Extract<HookOutcome, { ok: false }>["stage"], detail: string): HookOutcome => ({ ok: false, stage, detail });

export function parseHookArgs(argv: readonly string[]): { alias: string; agent: string } | undefined {
  const [alias, ...rest] = argv;
  if (alias === undefined) return undefined;
  let agent: string | undefined;
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] as string;
    if (arg === "--agent") agent = rest[++index];
    else if (arg.startsWith("--agent=")) agent = arg.slice("--agent=".length);
    else return undefined;
  }
  return agent === undefined ? undefined : { alias, agent };
}

export async function runHook(argv: readonly string[], input: HookInput, context: HookContext): Promise<HookOutcome> {
  const event = await identifyEvent(argv, input, context);
  if ("ok" in event) return event;
  if (context.progress) Object.assign(context.progress, { event, phase: "storing" });
  const progress = context.progress;
  const outcome = await applyToStore(event, {
    ...context,
    ...(progress ? { onSettled: () => (progress.settled = true) } : {}),
    onApplied: (applied, sessionsDir) => notifyOnChange(applied, sessionsDir, context),
  });
  if (progress) progress.settled = true;
  return outcome.ok ? outcome : reject("store", outcome.detail);
}

/**
 * Validate one event and resolve who sent it: the event to store, or why there is none (a rejection, or an event the
 * harness sends that changes no state). Touches no record: the synchronous hook stores the event at once (runHook),
 * the drainer with the others of its batch (drainer.ts).
 */
export async function identifyEvent(
  argv: readonly string[],
  input: HookInput,
  context: HookContext,
): Promise<LifecycleEvent | HookOutcome> {
  const args = parseHookArgs(argv);
  if (!args) return reject("usage", "usage: tongs-agents-hook <alias> --agent <harness-id>");
  const harness = findHarness(args.agent);
  if (!harness) return declaredEvent(args.agent, args.alias, input, context);
  if (!acceptsEvent(harness, args.alias))
    return reject("event", `${harness.id} does not accept ${JSON.stringify(args.alias.slice(0, 64))}`);
  if (context.progress) context.progress.phase = "validating";
  const read = args.alias === FLEET_EVENT ? fleetPayload(input) : nativePayload(input, harness.nativeFields);
  if (!read.ok) return reject(read.stage, read.detail);
  const json = read.value;
  return args.alias === FLEET_EVENT ? fleetEvent(harness, json, context) : nativeEvent(harness, args.alias as NativeAlias, json, context);
}

async function fleetEvent(harness: Harness, json: unknown, context: HookContext): Promise<LifecycleEvent | HookOutcome> {
  const parsed = FleetEventSchema.safeParse(json);
  if (!parsed.success) return reject("schema", describeIssue(parsed.error));
  const payload = parsed.data;
  const checked = interpretFleetEvent(harness, payload);
  if (!checked.ok) return reject("event", checked.detail);
  // The emitter supplies its own PID: look it up without checking its name, and keep its start token for later
  // stale and PID-reuse checks. A PID that is already gone leaves the token empty (the record shows as stale).
  const info = await withDeadline(context.processes.basics(payload.pid), context.scanBoundMs);
  const process = info === "timeout" ? undefined : info;
  const startsSession = checked.eventName === "session-start";
  return lifecycleEvent(harness, FLEET_EVENT, `${harness.id}.${checked.eventName}`, checked.transition, {
    sessionId: payload.session_id,
    instanceId: payload.instance_id,
    identity: "emitter",
    pid: payload.pid,
    processStart: process?.startToken ?? null,
    cwd: payload.cwd,
    sequence: payload.sequence,
    startsSession,
    mayCreate: checked.transition.status !== "ended",
    transcriptPath: undefined,
    tty: process?.tty,
    unprovable: undefined,
    context,
  });
}

async function nativeEvent(
  harness: Harness,
  alias: NativeAlias,
  json: unknown,
  context: HookContext,
): Promise<LifecycleEvent | HookOutcome> {
  const withCwd =
    harness.hookCwdIsSession === true && typeof json === "object" && json !== null && !("cwd" in json) && context.cwd !== undefined
      ? { ...json, cwd: context.cwd }
      : json;
  const parsed = NativePayloadSchema.safeParse(withCwd);
  if (!parsed.success) return reject("schema", describeIssue(parsed.error));
  const interpretation = interpretNative(alias, parsed.data);
  if (interpretation.kind === "ignore") return { ok: true, action: "ignored", detail: interpretation.reason };
  return identifiedEvent(harness, alias, `${harness.id}.${alias}`, interpretation.transition, parsed.data, context);
}

/**
 * An agent declared in config.json (harnesses/declared.ts): its event name maps to one state. Its payload is optional
 * (an agent that runs a command on its events rarely pipes JSON to it): without one, the session is the agent process
 * found in the hook's ancestry, in the hook's working directory. Then the same identity, bounds and store as native.
 */
async function declaredEvent(id: string, event: string, input: HookInput, context: HookContext): Promise<LifecycleEvent | HookOutcome> {
  const declared = (context.declared ?? loadDeclaredAgents)(context.env);
  const agent = findDeclared(declared, id);
  const shown = JSON.stringify(id.slice(0, 64));
  if (!agent) {
    const rejected = Object.hasOwn(declared.rejected, id) ? declared.rejected[id] : undefined;
    return reject("harness", rejected ? `declared agent ${shown} was rejected: ${rejected}` : `unknown harness ${shown}`);
  }
  const status = Object.hasOwn(agent.events, event) ? agent.events[event] : undefined;
  if (status === undefined) return reject("event", `${id} maps no event ${JSON.stringify(event.slice(0, 64))} to a state`);
  if (context.progress) context.progress.phase = "validating";
  const bytes = Buffer.isBuffer(input) ? input : input.bytes;
  const read = bytes.toString("latin1").trim() === "" ? ({ ok: true, value: {} } as const) : nativePayload(input);
  if (!read.ok) return reject(read.stage, read.detail);
  if (typeof read.value !== "object" || read.value === null) return reject("schema", "payload: not a JSON object");
  const given = read.value as Record<string, unknown>;
  const { harness } = agent;
  if (context.progress) context.progress.phase = "identifying";
  const found = await searchAncestry(harness, context);
  const sessionId = given.session_id ?? (found.found ? `process-${found.process.pid}` : undefined);
  if (sessionId === undefined)
    return reject("harness", `no session_id in the payload and no ${harness.processNames.join(" or ")} process among the hook's ancestors`);
  const parsed = NativePayloadSchema.safeParse({ ...given, session_id: sessionId, cwd: given.cwd ?? context.cwd ?? process.cwd() });
  if (!parsed.success) return reject("schema", describeIssue(parsed.error));
  const tool = parsed.data.tool_name === undefined ? "" : truncateBytes(toDisplayLine(parsed.data.tool_name), LIMITS.toolBytes);
  const transition: Transition = { status, detail: tool === "" ? event : `${event}: ${tool}`, tool, wait: declaredWait(status) };
  return identifiedEvent(harness, "declared", `${harness.id}.${event}`, transition, parsed.data, context, found);
}

/** Native and declared events: the harness process found in the hook's ancestry, or an explicit placeholder. */
async function identifiedEvent(
  harness: Harness,
  alias: NativeAlias | "declared",
  eventId: string,
  transition: Transition,
  payload: NativePayload,
  context: HookContext,
  searched?: AncestorSearch,
): Promise<LifecycleEvent | HookOutcome> {
  if (context.progress) context.progress.phase = "identifying";
  const found = searched ?? (await searchAncestry(harness, context, payload.session_id));
  const transcriptPath = transcriptPathOf(payload.transcript_path ?? harness.transcriptPathOf?.(payload.session_id, context.env));
  const starts = alias === "session-start" || (alias === "declared" && transition.status === "started");
  const common = {
    sessionId: payload.session_id,
    cwd: payload.cwd,
    sequence: null,
    startsSession: starts,
    transcriptPath,
    model: modelOf(payload),
    context,
  };
  if (!found.found) {
    // No harness process in our ancestry: an explicit placeholder, created only when a session visibly begins.
    return lifecycleEvent(harness, alias, eventId, transition, {
      ...common,
      instanceId: UNRESOLVED_INSTANCE,
      identity: "unresolved",
      pid: null,
      processStart: null,
      mayCreate: starts || alias === "prompt-submit" || (alias === "declared" && transition.status === "running"),
      tty: undefined,
      unprovable: undefined,
    });
  }
  const { process } = found;
  const daemon = await isSharedDaemon(harness, process, context);
  const spawn = await spawnEvidence(found.child, context);
  return lifecycleEvent(harness, alias, eventId, transition, {
    ...common,
    instanceId: processInstanceId(process.pid, process.startToken),
    identity: "process",
    pid: process.pid,
    processStart: process.startToken,
    mayCreate: transition.status !== "ended",
    tty: daemon ? undefined : process.tty,
    unprovable: daemon ? `${harness.displayName} shared daemon: hooks run with the environment of whichever UI started it` : undefined,
    spawn,
  });
}

/** The model a native payload names, one display line within its bound; undefined when it names none. */
function modelOf(payload: NativePayload): string | undefined {
  const model = typeof payload.model === "string" ? truncateBytes(toDisplayLine(payload.model), LIMITS.modelBytes) : "";
  return model === "" ? undefined : model;
}

/**
 * The harness process among the hook's ancestors, within the scan bound for how this harness is told. A process is also
 * known by a record of this session keyed to its exact PID and start token: an earlier event proved it from its name,
 * executable or script, and it may have exited since, when the shim's worker applies a later event (Copilot's and
 * Gemini's session end, `copilot -p`'s last turn) and its executable or arguments can no longer be read.
 */
function searchAncestry(harness: Harness, context: HookContext, sessionId?: string): Promise<AncestorSearch> {
  const scripts = harness.nodeScripts ?? [];
  const bound = scripts.length > 0 ? (context.scriptScanBoundMs ?? context.scanBoundMs) : context.scanBoundMs;
  const sessionsDir = sessionsDirOf(context.stateDir);
  const proven =
    sessionId !== undefined
      ? (basics: ProcessBasics) => {
          const digest = digestOf(canonicalId(harness.id, sessionId, processInstanceId(basics.pid, basics.startToken)));
          return digest !== undefined && existsSync(recordPath(sessionsDir, digest));
        }
      : undefined;
  return findAncestor(context.ppid, harness.processNames, {
    scripts,
    source: context.processes,
    deadline: context.now() + bound,
    now: context.now,
    proven,
  });
}

/**
 * The spawn order of the process the harness started for this event (core/spawn-order.ts): the harness's child on the
 * walk up (Claude Code's `/bin/sh -c`, which forks the hook, so the hook's own start order could differ), or the hook
 * itself when the harness started it directly (Codex).
 */
async function spawnEvidence(child: ProcessBasics | undefined, context: HookContext): Promise<Spawn | undefined> {
  const spawned = child ?? (await withDeadline(context.processes.basics(context.pid ?? process.pid), context.scanBoundMs));
  return spawned === undefined || spawned === "timeout" ? undefined : spawnOf(spawned);
}

/**
 * Does this harness process host several UIs (Codex's shared daemon)? Its arguments tell; when they cannot be read in
 * time, assume it might, so the record claims no terminal it cannot prove.
 */
async function isSharedDaemon(
  harness: Harness,
  process: ProcessBasics & { argv?: readonly string[] },
  context: HookContext,
): Promise<boolean> {
  if (!harness.isSharedDaemon) return false;
  const argv = process.argv ?? (await withDeadline(context.processes.argv(process.pid), context.scanBoundMs));
  return argv === "timeout" || argv === undefined || harness.isSharedDaemon(argv);
}

function lifecycleEvent(
  harness: Harness,
  alias: HookAlias | "declared",
  eventId: string,
  transition: Transition,
  facts: {
    sessionId: string;
    instanceId: string;
    identity: LifecycleEvent["identity"];
    pid: number | null;
    processStart: string | null;
    cwd: string;
    sequence: number | null;
    startsSession: boolean;
    mayCreate: boolean;
    transcriptPath: string | undefined;
    tty: string | undefined;
    unprovable: string | undefined;
    spawn?: Spawn | undefined;
    model?: string | undefined;
    context: HookContext;
  },
): LifecycleEvent {
  const ending = transition.status === "ended";
  return {
    harness: harness.id,
    alias,
    eventId,
    canonicalId: canonicalId(harness.id, facts.sessionId, facts.instanceId),
    sessionId: facts.sessionId,
    instanceId: facts.instanceId,
    identity: facts.identity,
    pid: facts.pid,
    processStart: facts.processStart,
    cwd: facts.cwd,
    status: transition.status,
    detail: transition.detail,
    tool: transition.tool,
    sequence: facts.sequence,
    startsSession: facts.startsSession,
    // A subagent's start or stop changes only what a record already holds.
    mayCreate: facts.mayCreate && !transition.subagent,
    sharedProcess: facts.unprovable !== undefined || harness.hostsManySessions === true,
    ...(transition.yieldsTo ? { yieldsTo: [...transition.yieldsTo] } : {}),
    ...(transition.wait ? { wait: transition.wait } : {}),
    ...(transition.toolUseId ? { toolUseId: transition.toolUseId } : {}),
    ...(transition.limit ? { limit: transition.limit } : {}),
    ...(transition.compaction ? { compaction: transition.compaction } : {}),
    ...(transition.subagent ? { subagent: transition.subagent } : {}),
    ...(facts.model ? { model: facts.model } : {}),
    ...(facts.spawn ? { spawn: facts.spawn } : {}),
    // The end of a session never reads launch identity: a later event cannot relabel a session.
    launch: ending ? undefined : launchFromEnv(facts.context.env),
    terminal: captureTerminal(facts.context.env, { tty: facts.tty, unprovable: facts.unprovable }),
    ...(facts.transcriptPath ? { transcriptPath: facts.transcriptPath } : {}),
  };
}
