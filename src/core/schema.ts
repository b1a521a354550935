// Wire and storage schemas. Defined with zod/mini so the hook bundle stays small (docs/benchmarks.md); the same
// schemas serve the CLI, the MCP server and the tests.
import * as z from "zod/mini";
import { lazySchema } from "./lazy-schema.ts";
import { LIMITS, byteLength, isStorableText } from "./bounds.ts";

/** States a lifecycle event can set. `discovered` is a view-only state for processes without a record. */
export const LIFECYCLE_STATUSES = ["started", "running", "waiting", "idle", "error", "ended"] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

/** Storable text (no NUL, well-formed Unicode) of at most `maxBytes` UTF-8 bytes: one check, one issue naming the fault. */
function text(maxBytes: number, { nonEmpty = false }: { nonEmpty?: boolean } = {}) {
  return z.string().check(
    z.check<string>((ctx) => {
      const fault = !isStorableText(ctx.value)
        ? "contains NUL or is not well-formed Unicode"
        : byteLength(ctx.value) > maxBytes
          ? `longer than ${maxBytes} bytes`
          : nonEmpty && ctx.value.length === 0
            ? "empty"
            : undefined;
      if (fault) ctx.issues.push({ code: "custom", message: fault, input: ctx.value });
    }),
  );
}

const idText = lazySchema(() => text(LIMITS.idBytes, { nonEmpty: true }));
const cwdText = lazySchema(() => text(LIMITS.cwdBytes, { nonEmpty: true }));
const transcriptPath = lazySchema(() => text(LIMITS.transcriptPathBytes).check(z.refine(isTranscriptPath, "not an absolute .jsonl path")));

/** An absolute `.jsonl` path without `..` segments: what a transcript path must be before it is stored or opened. */
export function isTranscriptPath(path: string): boolean {
  return (
    path.startsWith("/") &&
    path.endsWith(".jsonl") &&
    !path.split("/").includes("..") &&
    isStorableText(path) &&
    byteLength(path) <= LIMITS.transcriptPathBytes
  );
}

/** The transcript path of a native payload, when it qualifies; anything else is dropped. */
export function transcriptPathOf(value: unknown): string | undefined {
  return typeof value === "string" && isTranscriptPath(value) ? value : undefined;
}

export const HARNESS_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
export const EVENT_ID_PATTERN = /^([a-z][a-z0-9-]{0,31})\.([a-z][a-z0-9-]{0,63})$/;

/** The normalized payload read by `tongs-agents-hook fleet-event`, schema version 1, exactly these keys. */
export const FleetEventSchema = lazySchema(() =>
  z.strictObject({
    schema_version: z.literal(1),
    event_id: text(LIMITS.eventIdBytes).check(z.regex(EVENT_ID_PATTERN, "not <harness-id>.<event-name>")),
    session_id: idText,
    instance_id: idText,
    sequence: z.int().check(z.gte(0)),
    pid: z.int().check(z.gt(0)),
    cwd: cwdText,
    status: z.enum(LIFECYCLE_STATUSES),
    detail: text(LIMITS.detailBytes),
    tool: text(LIMITS.toolBytes),
  }),
);
export type FleetEvent = z.infer<typeof FleetEventSchema>;

/**
 * The fields tongs-agents reads from a harness's native hook JSON (Claude Code, Codex). Other fields are ignored and
 * never stored. Free text (tool name, last message) is bounded later by cutting, since it is derived, not stored as is.
 */
export const NativePayloadSchema = lazySchema(() =>
  z.looseObject({
    session_id: idText,
    cwd: cwdText,
    tool_name: z.optional(z.string().check(z.refine(isStorableText, "contains NUL or is not well-formed Unicode"))),
    last_assistant_message: z.optional(z.nullable(z.string().check(z.refine((value) => value.isWellFormed(), "not well-formed Unicode")))),
    notification_type: z.optional(z.string()),
    /** Copilot CLI's errorOccurred: what failed (`model_call` is a failed turn; other contexts are not). */
    error_context: z.optional(z.string()),
    /** Kimi Code's StopFailure: the failure's class name and message, its own words for a failed turn. */
    error_type: z.optional(z.string()),
    error_message: z.optional(z.string()),
    /** Checked apart (transcriptPathOf): a path that does not qualify is dropped, never a reason to refuse the event. */
    transcript_path: z.optional(z.unknown()),
    /** StopFailure's class of error (Claude Code, Qwen Code): `rate_limit` and `billing_error` are limits. */
    error: z.optional(z.string()),
    /** The model in use (every Codex payload, Claude Code's and Qwen Code's SessionStart). */
    model: z.optional(z.string()),
    /** PreCompact and PostCompact: `manual` or `auto`. */
    trigger: z.optional(z.string()),
    /** SessionStart's cause: Claude Code fires one with `compact` between PreCompact and PostCompact. */
    source: z.optional(z.string()),
    /** SubagentStart and SubagentStop: the subagent's id and type. */
    agent_id: z.optional(z.string()),
    agent_type: z.optional(z.string()),
  }),
);
export type NativePayload = z.infer<typeof NativePayloadSchema>;

export const LAUNCH_ID_PATTERN = /^[0-9a-f]{32}$/;
export const PROFILE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export const LaunchSchema = lazySchema(() =>
  z.strictObject({
    launch_id: z.optional(z.string().check(z.regex(LAUNCH_ID_PATTERN))),
    profile_id: z.optional(z.string().check(z.regex(PROFILE_ID_PATTERN))),
  }),
);
export type Launch = z.infer<typeof LaunchSchema>;

export const ENV_KEY_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;

export const TerminalSchema = lazySchema(() =>
  z.strictObject({
    /** Allowlisted terminal variables from the harness's environment (see terminal.ts). */
    env: z
      .record(z.string().check(z.regex(ENV_KEY_PATTERN)), text(LIMITS.envValueBytes))
      .check(z.refine((env) => Object.keys(env).length <= LIMITS.envEntries, `more than ${LIMITS.envEntries} entries`)),
    /** The harness process's controlling terminal, e.g. /dev/pts/3. */
    tty: z.optional(text(LIMITS.ttyBytes)),
    /** Set when the environment cannot prove which terminal the session is in (e.g. Codex's shared daemon). */
    unprovable: z.optional(text(LIMITS.detailBytes)),
  }),
);
export type Terminal = z.infer<typeof TerminalSchema>;

export const CANONICAL_ID_PATTERN = /^fleet:v1:([a-z][a-z0-9-]{0,31}):([0-9a-f]{64})$/;

// ISO 8601 date-time with a zone, checked by one plain regex (zod's iso.datetime costs three times as much per record,
// and listings read thousands); parseRecord also requires Date.parse to understand it.
const isoTime = lazySchema(() =>
  z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/, "not an ISO 8601 date-time")),
);

/** Marks a record as the explicit stand-in for a session whose process could not be identified. */
export const UNRESOLVED_INSTANCE = "unresolved";

const toolUseIdText = lazySchema(() => text(LIMITS.toolUseIdBytes, { nonEmpty: true }));

/** What the user is asked for while a session waits: a tool's permission, or an answer (a question, a dialog). */
export const WAIT_KINDS = ["permission", "input"] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

/**
 * A wait the harness opened and has not yet closed (docs/contract.md, "Waiting"). While any is open the session is
 * `waiting`, whatever other tools do meanwhile.
 */
export const PendingWaitSchema = lazySchema(() =>
  z.object({
    kind: z.enum(WAIT_KINDS),
    /** The tool that asked, when the harness named it. */
    tool: text(LIMITS.toolBytes),
    detail: text(LIMITS.detailBytes),
    /** tool_use_ids of the running tools that may have asked; empty when none was known (the tool name decides). */
    candidates: z.array(toolUseIdText).check(z.maxLength(LIMITS.waitCandidates)),
    since: isoTime,
    event: text(LIMITS.eventIdBytes),
  }),
);
export type PendingWait = z.infer<typeof PendingWaitSchema>;

/** A tool call that started (PreToolUse) and has not finished, by the harness's id for it. */
export const RunningToolSchema = lazySchema(() => z.object({ id: toolUseIdText, tool: text(LIMITS.toolBytes) }));
export type RunningTool = z.infer<typeof RunningToolSchema>;

/**
 * What kind of limit ended a turn, as the harness classes it (docs/contract.md, "Limits"): a rate limit (HTTP 429,
 * Claude Code's and Qwen Code's `rate_limit`), a plan's usage limit (Codex's `usage_limit_exceeded`), or billing
 * (`billing_error`). The session's state stays `error`: a limit is a kind of failed turn.
 */
export const LIMIT_KINDS = ["rate_limit", "usage_limit", "billing"] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

export const LimitSchema = lazySchema(() =>
  z.object({
    kind: z.enum(LIMIT_KINDS),
    /** The harness's own name for it: `rate_limit` (a StopFailure's error), `usage_limit_exceeded` (Codex), `429`. */
    stated: text(64),
    /** The harness's words, one display line. */
    message: text(LIMITS.detailBytes),
    /** When the limit resets, where the harness states it. */
    resets_at: z.optional(isoTime),
    /** Which window, in the harness's name for it: `five_hour`, `seven_day` (Claude Code), `primary` (Codex). */
    window: z.optional(text(64)),
  }),
);
export type Limit = z.infer<typeof LimitSchema>;

/** A subagent the harness said started (SubagentStart) and has not said stopped. */
export const SubagentSchema = lazySchema(() =>
  z.object({ id: text(LIMITS.toolUseIdBytes, { nonEmpty: true }), type: text(LIMITS.toolBytes), since: isoTime }),
);
export type Subagent = z.infer<typeof SubagentSchema>;

/** The model a hook payload named, and when. */
export const StatedModelSchema = lazySchema(() => z.object({ id: text(LIMITS.modelBytes, { nonEmpty: true }), at: isoTime }));

/**
 * Where a history entry came from. Writers use these names; readers accept any well-formed name, so the list can grow
 * (a transcript reader is planned) without an older reader refusing a newer record.
 */
export const EVENT_SOURCES = ["hook", "bridge", "liveness", "transcript", "session-state"] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

/** One event that changed the record, kept for `tongs-agents explain` (bounded: LIMITS.historyEntries). */
export const HistoryEntrySchema = lazySchema(() =>
  z.object({
    at: isoTime,
    source: z.string().check(z.regex(/^[a-z][a-z-]{0,31}$/)),
    event: text(LIMITS.eventIdBytes),
    status: z.enum(LIFECYCLE_STATUSES),
    /** What the event changed, in words (status, detail, tool, waits). */
    change: text(LIMITS.historyTextBytes),
  }),
);
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/**
 * When the session (re)started in its process, as evidence of order among the sessions one process ran: the spawn
 * order of the hook process the harness started for the event (start time in clock ticks, then PID), or the emitter's
 * sequence. The later start is the process's current session (docs/contract.md, "Session switching").
 */
export const StartOrderSchema = lazySchema(() =>
  z.union([
    z.object({ spawn_start: z.int().check(z.gte(0)), spawn_pid: z.int().check(z.gt(0)) }),
    z.object({ sequence: z.int().check(z.gte(0)) }),
  ]),
);
export type StartOrder = z.infer<typeof StartOrderSchema>;

/** Names of a record's spool entries (spool.ts). */
export const SPOOL_ENTRY_PATTERN = /^\d{20}-\d+-[0-9a-f]{8}\.json$/;
/** Names of the hook shim's queue entries (`<state>/incoming/<start>-<pid>.ev`, hook/shim-entry.ts). */
export const SHIM_ENTRY_PATTERN = /^\d{1,20}-\d{1,10}\.ev$/;

/**
 * A stored session record. Unknown keys (from a newer writer) are dropped on read; fields added after the first
 * release default, so the smallest record a writer of schema version 1 ever produced still reads (docs/contract.md).
 */
export const SessionRecordSchema = lazySchema(() =>
  z.object({
    schema_version: z.literal(1),
    canonical_id: z.string().check(z.regex(CANONICAL_ID_PATTERN)),
    harness: z.string().check(z.regex(HARNESS_ID_PATTERN)),
    session_id: idText,
    instance_id: idText,
    /** How `pid` was established: `process` (ancestry), `emitter` (supplied by the extension), `unresolved` (none). */
    identity: z._default(z.enum(["process", "emitter", "unresolved"]), "process"),
    pid: z._default(z.nullable(z.int().check(z.gt(0))), null),
    /** Process-start token of `pid` when recorded, for stale and PID-reuse checks (identity.ts). */
    process_start: z._default(z.nullable(text(LIMITS.processStartBytes)), null),
    cwd: cwdText,
    status: z.enum(LIFECYCLE_STATUSES),
    detail: z._default(text(LIMITS.detailBytes), ""),
    tool: z._default(text(LIMITS.toolBytes), ""),
    /** Emitter sequence of the last applied event (emitter identity only). */
    sequence: z._default(z.nullable(z.int().check(z.gte(0))), null),
    /** Local receipt order, incremented under the record lock for every applied event. */
    arrival_sequence: z._default(z.int().check(z.gte(0)), 0),
    last_event: z._default(text(LIMITS.eventIdBytes), ""),
    created_at: z.optional(isoTime),
    updated_at: isoTime,
    status_changed_at: z.optional(isoTime),
    launch: z.optional(LaunchSchema),
    terminal: z._default(TerminalSchema, { env: {} }),
    /** The transcript the harness writes (from its hook payloads): where readers look for what no hook reports. */
    transcript_path: z.optional(transcriptPath),
    /** Open waits, oldest first; absent when none (apply.ts, waits.ts). */
    pending: z.optional(z.array(PendingWaitSchema).check(z.maxLength(LIMITS.pendingWaits))),
    /** Tools started and not yet finished, oldest first; absent when none. */
    running_tools: z.optional(z.array(RunningToolSchema).check(z.maxLength(LIMITS.runningTools))),
    /** The last events that changed the record, oldest first. */
    history: z.optional(z.array(HistoryEntrySchema).check(z.maxLength(LIMITS.historyEntries))),
    start_order: z.optional(StartOrderSchema),
    /** Set while the session is `error` because a limit ended the turn (docs/contract.md, "Limits"). */
    limit: z.optional(LimitSchema),
    /** The model the harness's hooks named last (Codex names it in every payload, Claude Code at session start). */
    model: z.optional(StatedModelSchema),
    /** Subagents started and not yet stopped, oldest first; absent when none. */
    subagents: z.optional(z.array(SubagentSchema).check(z.maxLength(LIMITS.subagents))),
    /** Set while the harness compacts the conversation (from PreCompact to the next state event): `was` is the state before. */
    compacting: z.optional(z.object({ since: isoTime, trigger: text(32), was: z.enum(LIFECYCLE_STATUSES) })),
    /**
     * Queue entries (the record's spool, the shim's queue) this write applied: a holder or reader that still finds one
     * queued must not apply it again (store/transaction.ts, "Exactly once").
     */
    queue_applied: z.optional(
      z
        .array(
          z.string().check(z.refine((name) => SPOOL_ENTRY_PATTERN.test(name) || SHIM_ENTRY_PATTERN.test(name), "not a queue entry name")),
        )
        .check(z.maxLength(2 * LIMITS.queueBatch)),
    ),
  }),
);
/** A record as held in memory: every timestamp present (parseRecord fills the defaults). */
export type SessionRecord = z.infer<typeof SessionRecordSchema> & { created_at: string; status_changed_at: string };

/** What an unresolved placeholder becomes once its session is identified: it is never revived afterwards. */
export const TombstoneSchema = lazySchema(() =>
  z.strictObject({
    schema_version: z.literal(1),
    tombstone: z.literal(true),
    canonical_id: z.string().check(z.regex(CANONICAL_ID_PATTERN)),
    migrated_to: z.string().check(z.regex(CANONICAL_ID_PATTERN)),
    created_at: isoTime,
  }),
);
export type Tombstone = z.infer<typeof TombstoneSchema>;

/** Points from one harness process (instance) to the session it currently runs, for session switching. */
export const InstancePointerSchema = lazySchema(() =>
  z.strictObject({
    schema_version: z.literal(1),
    canonical_id: z.string().check(z.regex(CANONICAL_ID_PATTERN)),
  }),
);

/**
 * How an event changes a session's open waits (waits.ts): it asks for a permission or an answer, starts or ends a
 * tool, answers the open prompt, or ends them all (a new prompt, the end of the turn, of the session).
 */
export const WAIT_EFFECTS = ["permission", "input", "tool-start", "tool-approved", "tool-end", "answered", "clear"] as const;
export type WaitEffect = (typeof WAIT_EFFECTS)[number];

/**
 * A lifecycle event after validation and identity resolution, as queued in a record's spool (spool.ts) and applied by
 * apply.ts. Only tongs-agents writes these; they are validated again when read, like everything on disk.
 */
export const LifecycleEventSchema = lazySchema(() =>
  z.strictObject({
    harness: z.string().check(z.regex(HARNESS_ID_PATTERN)),
    /** The hook alias that produced it (a native alias or fleet-event). */
    alias: z.string().check(z.regex(/^[a-z][a-z-]{0,31}$/)),
    /** Namespaced event id stored as `last_event`, e.g. `claude.stop` or `pi.agent-end`. */
    eventId: text(LIMITS.eventIdBytes),
    canonicalId: z.string().check(z.regex(CANONICAL_ID_PATTERN)),
    sessionId: idText,
    instanceId: idText,
    identity: z.enum(["process", "emitter", "unresolved"]),
    pid: z.nullable(z.int().check(z.gt(0))),
    processStart: z.nullable(text(LIMITS.processStartBytes)),
    cwd: cwdText,
    status: z.enum(LIFECYCLE_STATUSES),
    detail: text(LIMITS.detailBytes),
    tool: text(LIMITS.toolBytes),
    /** Emitter sequence; null for native aliases, which never trust a producer's sequence. */
    sequence: z.nullable(z.int().check(z.gte(0))),
    /** Starts (or restarts) a session: the only event that may capture launch and terminal into an existing record. */
    startsSession: z.boolean(),
    /** May this event create a record? (Unresolved placeholders: only session-start and prompt-submit.) */
    mayCreate: z.boolean(),
    /** The harness process hosts several sessions at once (Codex's shared daemon, OpenCode): starting one ends no other. */
    sharedProcess: z.boolean(),
    /** States this event does not replace (events.ts). */
    yieldsTo: z.optional(z.array(z.enum(LIFECYCLE_STATUSES))),
    /** How the event opens or closes waits (events.ts); absent in events queued by an older writer. */
    wait: z.optional(z.enum(WAIT_EFFECTS)),
    /** The harness's id for the tool call, when it sent one. */
    toolUseId: z.optional(toolUseIdText),
    /** Spawn order of the hook process the harness started for this event (native events on Linux and macOS). */
    spawn: z.optional(z.object({ start: z.int().check(z.gte(0)), pid: z.int().check(z.gt(0)) })),
    launch: z.optional(LaunchSchema),
    terminal: TerminalSchema,
    transcriptPath: z.optional(transcriptPath),
    /**
     * Set on events read from what the harness itself wrote (docs/contract.md, "Sources of state"): which file said it,
     * and when the harness said it. Such an event applies only when said after the record's last applied event.
     */
    stated: z.optional(z.strictObject({ source: z.enum(["transcript", "session-state"]), at: isoTime })),
    /** A limit ended the turn (status `error`). */
    limit: z.optional(LimitSchema),
    /** The model the payload named. */
    model: z.optional(text(LIMITS.modelBytes, { nonEmpty: true })),
    /**
     * Compaction starts (PreCompact) or ends (PostCompact), started `manual`ly or `auto`matically as the harness says.
     * Its end restores the state compaction began in (apply.ts): `status` is then decided there.
     */
    compaction: z.optional(z.strictObject({ phase: z.enum(["start", "end"]), trigger: text(32) })),
    /**
     * The event changes only what it names (a subagent started or stopped) and leaves the state as it is: `status`,
     * `detail` and `tool` are not applied, waits are untouched.
     */
    subagent: z.optional(
      z.strictObject({ op: z.enum(["start", "stop"]), id: text(LIMITS.toolUseIdBytes, { nonEmpty: true }), type: text(LIMITS.toolBytes) }),
    ),
  }),
);
export type LifecycleEvent = z.infer<typeof LifecycleEventSchema>;

// The words for a schema mismatch are made in one place (issue-words.ts); readers of this module find them here too.
export { describeIssue } from "./issue-words.ts";
