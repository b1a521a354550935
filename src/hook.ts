// The hook pipeline: validate one event, resolve who sent it, apply it to the session's record under its lock.
// Every rejection happens before the store is touched. Callers (hook-main.ts) turn any outcome into exit code 0.
import { lstatSync } from "node:fs";
import { applyEvent } from "./apply.ts";
import { LIMITS } from "./bounds.ts";
import { interpretFleetEvent, interpretNative, type Transition } from "./events.ts";
import { FLEET_EVENT, acceptsEvent, findHarness, type Harness, type HookAlias, type NativeAlias } from "./harnesses.ts";
import { canonicalId, digestOf, instanceDigest, placeholderCanonicalId, processInstanceId } from "./identity.ts";
import { launchFromEnv } from "./launch.ts";
import { ensureStateDirs } from "./paths.ts";
import { findAncestor, withDeadline, type ProcessBasics, type ProcessSource } from "./proc.ts";
import { FleetEventSchema, NativePayloadSchema, UNRESOLVED_INSTANCE, describeIssue, type LifecycleEvent, type SessionRecord, type Tombstone } from "./schema.ts";
import { enqueue, isQueued, queuedEvents, removeQueued } from "./spool.ts";
import { instancePointerPath, readInstancePointer, readRecord, recordPath, writeJsonAtomic, writeRecord } from "./store.ts";
import { withRecordLock } from "./record-lock.ts";
import { notifyOnChange } from "./notify/trigger.ts";
import { captureTerminal } from "./terminal.ts";

export interface HookContext {
  readonly env: NodeJS.ProcessEnv;
  /** Parent of the hook process: where the ancestry walk starts. */
  readonly ppid: number;
  readonly processes: ProcessSource;
  readonly stateDir: string;
  readonly now: () => number;
  /** How long the process scan may take before identity counts as unresolved. */
  readonly scanBoundMs: number;
  /** How long to wait for a record lock before the event is left queued for the next lock holder. */
  readonly lockBoundMs: number;
  /** Filled in as the hook goes, so a watchdog that fires mid-way can still queue a validated event (hook-main.ts). */
  readonly progress?: HookProgress;
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

export type HookInput = Buffer | { tooLarge: true };

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
  const args = parseHookArgs(argv);
  if (!args) return reject("usage", "usage: tongs-agents-hook <alias> --agent <harness-id>");
  const harness = findHarness(args.agent);
  if (!harness) return reject("harness", `unknown harness ${JSON.stringify(args.agent.slice(0, 64))}`);
  if (!acceptsEvent(harness, args.alias)) return reject("event", `${harness.id} does not accept ${JSON.stringify(args.alias.slice(0, 64))}`);
  if (!Buffer.isBuffer(input)) return reject("input", `input larger than ${LIMITS.inputBytes} bytes`);
  if (context.progress) context.progress.phase = "validating";
  let json: unknown;
  try {
    json = JSON.parse(input.toString("utf8"));
  } catch {
    return reject("input", "input is not JSON");
  }
  const event = args.alias === FLEET_EVENT ? await fleetEvent(harness, json, context) : await nativeEvent(harness, args.alias as NativeAlias, json, context);
  if ("ok" in event) return event;
  if (context.progress) Object.assign(context.progress, { event, phase: "storing" });
  const outcome = await store(event, context);
  if (context.progress) context.progress.settled = true;
  return outcome;
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
    tty: process?.tty,
    unprovable: undefined,
    context,
  });
}

async function nativeEvent(harness: Harness, alias: NativeAlias, json: unknown, context: HookContext): Promise<LifecycleEvent | HookOutcome> {
  const parsed = NativePayloadSchema.safeParse(json);
  if (!parsed.success) return reject("schema", describeIssue(parsed.error));
  const interpretation = interpretNative(alias, parsed.data);
  if (interpretation.kind === "ignore") return { ok: true, action: "ignored", detail: interpretation.reason };
  if (context.progress) context.progress.phase = "identifying";
  const found = await findAncestor(context.ppid, harness.processNames, { source: context.processes, deadline: context.now() + context.scanBoundMs, now: context.now });
  const common = { sessionId: parsed.data.session_id, cwd: parsed.data.cwd, sequence: null, startsSession: alias === "session-start", context };
  if (!found.found) {
    // No harness process in our ancestry: an explicit placeholder, created only when a session visibly begins.
    return lifecycleEvent(harness, alias, `${harness.id}.${alias}`, interpretation.transition, {
      ...common,
      instanceId: UNRESOLVED_INSTANCE,
      identity: "unresolved",
      pid: null,
      processStart: null,
      mayCreate: alias === "session-start" || alias === "prompt-submit",
      tty: undefined,
      unprovable: undefined,
    });
  }
  const { process } = found;
  const daemon = await isSharedDaemon(harness, process, context);
  return lifecycleEvent(harness, alias, `${harness.id}.${alias}`, interpretation.transition, {
    ...common,
    instanceId: processInstanceId(process.pid, process.startToken),
    identity: "process",
    pid: process.pid,
    processStart: process.startToken,
    mayCreate: interpretation.transition.status !== "ended",
    tty: daemon ? undefined : process.tty,
    unprovable: daemon ? `${harness.displayName} shared daemon: hooks run with the environment of whichever UI started it` : undefined,
  });
}

/**
 * Does this harness process host several UIs (Codex's shared daemon)? Its arguments tell; when they cannot be read in
 * time, assume it might, so the record claims no terminal it cannot prove.
 */
async function isSharedDaemon(harness: Harness, process: ProcessBasics & { argv?: readonly string[] }, context: HookContext): Promise<boolean> {
  if (!harness.isSharedDaemon) return false;
  const argv = process.argv ?? (await withDeadline(context.processes.argv(process.pid), context.scanBoundMs));
  return argv === "timeout" || argv === undefined || harness.isSharedDaemon(argv);
}

function lifecycleEvent(
  harness: Harness,
  alias: HookAlias,
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
    tty: string | undefined;
    unprovable: string | undefined;
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
    mayCreate: facts.mayCreate,
    sharedProcess: facts.unprovable !== undefined,
    ...(transition.yieldsTo ? { yieldsTo: [...transition.yieldsTo] } : {}),
    // The end of a session never reads launch identity: a later event cannot relabel a session.
    launch: ending ? undefined : launchFromEnv(facts.context.env),
    terminal: captureTerminal(facts.context.env, { tty: facts.tty, unprovable: facts.unprovable }),
  };
}

/**
 * Queue an identified event without waiting for anything (synchronous file writes): what a watchdog does with an event
 * it would otherwise lose. The next lock holder applies it.
 */
export function queueNow(event: LifecycleEvent, stateDir: string): boolean {
  const dirs = ensureStateDirs(stateDir);
  return dirs.ok && enqueue(dirs.sessionsDir, digestOf(event.canonicalId) as string, event).ok;
}

async function store(event: LifecycleEvent, context: HookContext): Promise<HookOutcome> {
  const dirs = ensureStateDirs(context.stateDir);
  if (!dirs.ok) return reject("store", dirs.detail);
  const { sessionsDir } = dirs;
  const digest = digestOf(event.canonicalId) as string;
  const done = (action: "written" | "skipped" | "deferred", detail: string): HookOutcome => ({ ok: true, action, detail, canonicalId: event.canonicalId });

  if (event.identity === "unresolved" && readRecord(recordPath(sessionsDir, digest), context.now()).kind === "tombstone") {
    return done("skipped", "placeholder already migrated to an identified record");
  }
  // The lock is usually free: apply at once, after anything others queued. Only when it is busy, queue the event and
  // wait (bounded) for the lock or for another holder to apply it.
  const now = await withRecordLock(sessionsDir, digest, context.now(), async () => drain(sessionsDir, digest, context, event));
  let drained: typeof now;
  let queuedPath: string | undefined;
  if (now.ok || now.reason !== "timeout") drained = now;
  else {
    const queued = enqueue(sessionsDir, digest, event);
    if (!queued.ok) return reject("store", queued.detail);
    if (context.progress) context.progress.settled = true;
    queuedPath = queued.path;
    drained = await withRecordLock(sessionsDir, digest, context.now() + context.lockBoundMs, async () => drain(sessionsDir, digest, context), {
      stopWaiting: () => !isQueued(queued.path),
    });
  }
  // The event is applied, queued or refused: a watchdog firing during the steps below must not queue it again.
  if (context.progress) context.progress.settled = true;
  if (!drained.ok) {
    return drained.reason === "not-needed"
      ? done("deferred", "applied by a concurrent hook")
      : drained.reason === "timeout"
        ? done("deferred", "record busy: the event stays queued for the next lock holder")
        : reject("store", drained.detail);
  }
  const { applied, failure } = drained.value;
  if (failure) return reject("store", failure);
  notifyOnChange(applied, sessionsDir, context);
  // Placeholder migration and session switching touch other records: done after this record's lock is released.
  const identified = applied.filter((result) => result.event.identity !== "unresolved");
  const last = identified.at(-1);
  if (last) await migratePlaceholder(sessionsDir, last.event, context);
  for (const result of identified) if (result.event.startsSession || result.created) await supersedePrevious(sessionsDir, result.event, context);
  const mine = drained.value.outcomes.get(queuedPath ?? OWN_EVENT);
  if (!mine) return done("deferred", "applied by a concurrent hook");
  return mine.applied ? done("written", `${event.eventId} -> ${event.status}`) : done("skipped", mine.detail);
}

/** Key of the caller's own, unqueued event in Drained.outcomes. */
const OWN_EVENT = "own";

interface Drained {
  /** Events written to the record, in order. */
  readonly applied: { event: LifecycleEvent; created: boolean }[];
  /** What happened to each queued entry this holder processed. */
  readonly outcomes: Map<string, { applied: boolean; detail: string }>;
  readonly failure?: string;
}

/**
 * Under the record lock: apply every queued event in arrival order, then `own` (the caller's event, not queued), write
 * the record once, then dequeue what was applied.
 */
function drain(sessionsDir: string, digest: string, context: HookContext, own?: LifecycleEvent): Drained {
  const entries = queuedEvents(sessionsDir, digest);
  const all = own ? [...entries, { path: OWN_EVENT, event: own }] : entries;
  const outcomes: Drained["outcomes"] = new Map();
  const applied: Drained["applied"] = [];
  const current = readRecord(recordPath(sessionsDir, digest), context.now());
  if (current.kind === "invalid" && current.reason === "newer-schema") return { applied, outcomes, failure: current.detail };
  const migrated = current.kind === "tombstone";
  let record: SessionRecord | undefined = current.kind === "record" ? current.record : undefined;
  const nowIso = new Date(context.now()).toISOString();
  for (const { path, event } of all) {
    if (!event) outcomes.set(path, { applied: false, detail: "malformed queue entry dropped" });
    else if (migrated) outcomes.set(path, { applied: false, detail: "placeholder already migrated" });
    else {
      const result = applyEvent(record, event, nowIso);
      if (result.action === "skip") outcomes.set(path, { applied: false, detail: `${result.reason}: ${result.detail}` });
      else {
        record = result.record;
        applied.push({ event, created: result.created });
        outcomes.set(path, { applied: true, detail: "" });
      }
    }
  }
  if (record && applied.length > 0) {
    const written = writeRecord(sessionsDir, digest, record);
    // Leave the queue as it is: the next holder retries every event.
    if (!written.ok) return { applied: [], outcomes: new Map(), failure: written.detail };
  }
  removeQueued(entries);
  return { applied, outcomes };
}

/** The identified record is written; now retire the placeholder for the same session, if any, for good. */
async function migratePlaceholder(sessionsDir: string, event: LifecycleEvent, context: HookContext): Promise<void> {
  const placeholder = placeholderCanonicalId(event.harness, event.sessionId);
  const digest = digestOf(placeholder) as string;
  const path = recordPath(sessionsDir, digest);
  if (!lstatSync(path, { throwIfNoEntry: false })) return;
  await withRecordLock(sessionsDir, digest, context.now() + context.lockBoundMs, async () => {
    const current = readRecord(path, context.now());
    if (current.kind !== "record") return;
    const tombstone: Tombstone = {
      schema_version: 1,
      tombstone: true,
      canonical_id: placeholder,
      migrated_to: event.canonicalId,
      created_at: new Date(context.now()).toISOString(),
    };
    writeRecord(sessionsDir, digest, tombstone);
  });
}

/**
 * One harness process runs one session at a time (/clear, /new, resume): when it starts another, the record of the
 * previous one is ended. Codex's shared daemon hosts several sessions at once and is exempt.
 */
async function supersedePrevious(sessionsDir: string, event: LifecycleEvent, context: HookContext): Promise<void> {
  if (event.sharedProcess) return;
  const pointer = instancePointerPath(sessionsDir, instanceDigest(event.harness, event.instanceId));
  const previous = readInstancePointer(pointer);
  if (previous === event.canonicalId) return;
  const previousDigest = previous === undefined ? undefined : digestOf(previous);
  if (previousDigest !== undefined) {
    await withRecordLock(sessionsDir, previousDigest, context.now() + context.lockBoundMs, async () => {
      const current = readRecord(recordPath(sessionsDir, previousDigest), context.now());
      if (current.kind !== "record" || current.record.status === "ended") return;
      const nowIso = new Date(context.now()).toISOString();
      writeRecord(sessionsDir, previousDigest, {
        ...current.record,
        status: "ended",
        detail: "replaced by a new session in the same process",
        tool: "",
        arrival_sequence: current.record.arrival_sequence + 1,
        last_event: event.eventId,
        updated_at: nowIso,
        status_changed_at: nowIso,
      });
    });
  }
  writeJsonAtomic(pointer, { schema_version: 1, canonical_id: event.canonicalId });
}
