// Reading one host: run tongs-agents there over ssh and check what comes back as strictly as a local record. The
// output is bounded, parsed, and each row validated on its own; a row is tagged with the host that was asked, so one
// host's output can never produce rows for another host (or for this machine).
import { existsSync } from "node:fs";
import * as z from "zod/mini";
import { lazySchema } from "../core/lazy-schema.ts";
import { ATTENTION_ORDER, type AttentionRank } from "../fleet/attention.ts";
import { ageSeconds, type SessionView } from "../fleet/view.ts";
import { run as defaultRun, type Runner } from "../core/exec.ts";
import { CANONICAL_ID_PATTERN, LIFECYCLE_STATUSES, LIMIT_KINDS, TerminalSchema, describeIssue } from "../core/schema.ts";
import { cutChars, displayLine } from "../core/terminal-text.ts";
import type { HostEntry } from "./config.ts";
import { controlPath, masterArgs, sshArgs } from "./ssh.ts";

/**
 * Open the host's shared connection in the background for the next reads (this read connects on its own). Detached,
 * with no pipe of ours, so nothing waits for it; it exits ControlPersist seconds after its last use.
 */
function startMaster(host: HostEntry, dir: string, env: NodeJS.ProcessEnv | undefined): void {
  try {
    // Required here: the status bundle carries this file, and most runs reach no host (src/core/exec.ts).
    process
      .getBuiltinModule("node:child_process")
      .spawn("ssh", masterArgs(host, dir), { stdio: "ignore", detached: true, ...(env ? { env } : {}) })
      .on("error", () => undefined)
      .unref();
  } catch {
    // no ssh: the read itself reports it
  }
}

/** A session row as every reader shows it: `host` is empty for this machine, else the configured host's name. */
export type HostedSession = SessionView & { readonly host: string; readonly attention: AttentionRank };

/** What reading a host came to: rows shown, or why none are (never silently nothing). */
export interface HostReport {
  readonly host: string;
  readonly destination: string;
  readonly state: "ok" | "unreachable" | "failed";
  readonly detail: string;
  readonly elapsed_ms: number;
  /** Rows the host sent that did not fit the schema (left out, counted). */
  readonly invalid_rows: number;
}

export interface RemoteContext {
  readonly run?: Runner;
  /** The caller's environment, which ssh runs with (its agent socket, its config's variables); default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
  readonly controlDir: string | undefined;
  /** The whole read of one host, connection included, for a host without a bound of its own (`timeout_s`). */
  readonly timeoutMs: number;
  /** At most this long, whatever the host's bound (the time a wait has left). */
  readonly limitMs?: number;
  readonly now?: () => number;
  /** Starts the background shared connection when its socket is missing (tests pass a recorder). */
  readonly startMaster?: (host: HostEntry, dir: string, env: NodeJS.ProcessEnv | undefined) => void;
}

/** A host's answer is a listing, never a bulk transfer. */
export const MAX_REMOTE_BYTES = 1024 * 1024;
const MAX_REMOTE_ROWS = 2000;

export const short = (max: number) => z.string().check(z.maxLength(max));
export const stamp = lazySchema(() =>
  z.string().check(
    z.maxLength(40),
    z.refine((value) => !Number.isNaN(Date.parse(value)), "not a time"),
  ),
);
export const VIEW_STATUSES = [...LIFECYCLE_STATUSES, "discovered"] as const;
const RemoteIdPattern = new RegExp(`${CANONICAL_ID_PATTERN.source}|^discovered:[a-z][a-z0-9-]{0,31}:\\d{1,10}$`);

// Unknown keys are dropped (a newer tongs-agents may send more); every key we show is checked.
const RemoteRowSchema = lazySchema(() =>
  z.object({
    id: z.string().check(z.regex(RemoteIdPattern)),
    short_id: z.string().check(z.regex(/^[a-z0-9]{1,32}$/)),
    harness: z.string().check(z.regex(/^[a-z][a-z0-9-]{0,31}$/)),
    harness_name: short(64),
    session_id: short(512),
    instance_id: short(512),
    identity: z.enum(["process", "emitter", "unresolved", "discovered"]),
    status: z.enum(VIEW_STATUSES),
    recorded_status: z.enum(VIEW_STATUSES),
    stale: z.boolean(),
    stale_reason: short(512),
    pid: z.nullable(z.int().check(z.gte(1), z.lte(2 ** 31))),
    cwd: short(4096),
    detail: short(2048),
    tool: short(512),
    last_event: short(128),
    created_at: stamp,
    updated_at: stamp,
    status_changed_at: stamp,
    launch_id: short(64),
    profile_id: short(64),
    terminal: TerminalSchema,
    attention: z.optional(z.enum(ATTENTION_ORDER)),
    host: z.optional(z.literal("")),
    /** Sent by hosts of this version on; the age is the host's own reckoning, free of any skew between the clocks. */
    state_age_s: z.optional(z.int().check(z.gte(0), z.lte(2 ** 40))),
    // What a session states about itself (fleet/usage.ts): absent from a host whose tongs-agents predates it.
    ...usageShape(),
  }),
);

/** The usage keys of a row (docs/limits.md), each defaulting to "not stated" for an older host. */
function usageShape() {
  const count = () => z.nullable(z.number().check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)));
  return {
    limit: z._default(
      z.nullable(
        z.object({
          kind: z.enum(LIMIT_KINDS),
          stated: short(64),
          message: short(2048),
          resets_at: z.nullable(stamp),
          window: z.nullable(short(64)),
          reset_passed: z.boolean(),
        }),
      ),
      null,
    ),
    model: z._default(z.nullable(short(128)), null),
    context: z._default(z.nullable(z.object({ used: count(), window: count(), percent: count() })), null),
    tokens: z._default(
      z.nullable(
        z.object({
          input: z.number().check(z.gte(0)),
          output: z.number().check(z.gte(0)),
          cache_read: z.number().check(z.gte(0)),
          cache_write: z.number().check(z.gte(0)),
          complete: z.boolean(),
        }),
      ),
      null,
    ),
    quota: z._default(
      z
        .array(
          z.object({
            window: short(64),
            used_percent: z.number().check(z.gte(0), z.lte(1000)),
            resets_at: z.nullable(stamp),
            window_minutes: count(),
          }),
        )
        .check(z.maxLength(8)),
      [],
    ),
    compacting: z._default(z.boolean(), false),
    subagents: z._default(z.array(z.object({ id: short(128), type: short(256), since: stamp })).check(z.maxLength(16)), []),
  };
}

const ListingSchema = lazySchema(() => z.object({ sessions: z.array(z.unknown()).check(z.maxLength(MAX_REMOTE_ROWS)) }));

/** A failed read keeps the JSON the command printed, if any (focus prints its result and exits non-zero). */
export type RemoteRead<T> = { ok: true; value: T; report: HostReport } | { ok: false; report: HostReport; value?: unknown };

/** Run `words` (tongs-agents arguments) on the host and parse its JSON answer, within the time bound. */
export async function readRemoteJson(host: HostEntry, words: readonly string[], context: RemoteContext): Promise<RemoteRead<unknown>> {
  const { run = defaultRun, now = Date.now } = context;
  const timeoutMs = boundOf(host, context);
  const started = now();
  if (context.controlDir !== undefined && !existsSync(controlPath(context.controlDir, host)))
    (context.startMaster ?? startMaster)(host, context.controlDir, context.env);
  // SIGKILL at the bound: the read is the whole bound (a status line waits for it), and an ssh client has nothing to
  // clean up that its shared connection does not.
  const result = await run("ssh", sshArgs(host, words, { controlDir: context.controlDir }), {
    timeoutMs,
    killSignal: "SIGKILL",
    ...(context.env ? { env: context.env } : {}),
  });
  const report = (state: HostReport["state"], detail: string): HostReport => ({
    host: host.name,
    destination: host.destination,
    state,
    detail,
    elapsed_ms: now() - started,
    invalid_rows: 0,
  });
  const said = firstLine(result.stderr);
  if (result.failure === "not-found") return { ok: false, report: report("failed", "ssh is not installed here") };
  if (result.failure === "timeout") return { ok: false, report: report("unreachable", `no answer within ${timeoutMs} ms`) };
  if (result.failure) return { ok: false, report: report("failed", result.detail ?? "ssh could not run") };
  // ssh exits 255 for its own errors (no route, refused, authentication); anything else is the remote command's code.
  if (result.code === 255) return { ok: false, report: report("unreachable", said || "ssh failed (exit 255)") };
  if (result.code === 127)
    return { ok: false, report: report("failed", `${host.command} not found on ${host.name}${said ? `: ${said}` : ""}`) };
  if (Buffer.byteLength(result.stdout, "utf8") > MAX_REMOTE_BYTES)
    return { ok: false, report: report("failed", `answer larger than ${MAX_REMOTE_BYTES} bytes`) };
  let value: unknown;
  try {
    value = JSON.parse(result.stdout);
  } catch {
    return { ok: false, report: report("failed", `answer is not JSON (exit ${result.code ?? "?"}${said ? `: ${said}` : ""})`) };
  }
  if (!result.ok) {
    const detail =
      typeof value === "object" && value !== null && "detail" in value ? cutChars(displayLine(String(value.detail)), 512) : said;
    return { ok: false, report: report("failed", `exit ${result.code ?? "?"}${detail ? `: ${detail}` : ""}`), value };
  }
  return { ok: true, value, report: report("ok", "") };
}

/** How long one read of `host` may take: its own bound, else the default, and never past the caller's limit. */
export function boundOf(host: HostEntry, context: RemoteContext): number {
  const bound = host.timeoutMs ?? context.timeoutMs;
  return context.limitMs === undefined ? bound : Math.min(bound, context.limitMs);
}

/** What a host said on stderr, as one line safe to show: a host's text never reaches a terminal raw. */
function firstLine(text: string): string {
  return cutChars(displayLine(text.split("\n").find((line) => line.trim() !== "") ?? ""), 300);
}

/** The host's sessions (`list --json --local`), each row checked and tagged with this host's name. */
export async function readRemoteSessions(
  host: HostEntry,
  { all }: { all: boolean },
  context: RemoteContext,
): Promise<{ sessions: HostedSession[]; report: HostReport }> {
  const read = await readRemoteJson(host, ["list", "--json", "--local", ...(all ? ["--all"] : [])], context);
  if (!read.ok) return { sessions: [], report: read.report };
  return rowsOf(host, read.value, read.report);
}

export function rowsOf(host: HostEntry, value: unknown, report: HostReport): { sessions: HostedSession[]; report: HostReport } {
  const listing = ListingSchema.safeParse(value);
  if (!listing.success)
    return {
      sessions: [],
      report: {
        ...report,
        state: "failed",
        detail: `answer is not a session listing (${describeIssue(listing.error, value, ListingSchema)})`,
      },
    };
  const sessions: HostedSession[] = [];
  let invalid = 0;
  for (const item of listing.data.sessions) {
    const row = rowOf(host, item);
    if (row) sessions.push(row);
    else invalid++;
  }
  return { sessions, report: { ...report, invalid_rows: invalid } };
}

/** One session the host sent, checked and tagged with this host's name; undefined when it does not fit. */
export function rowOf(host: HostEntry, item: unknown, now: number = Date.now()): HostedSession | undefined {
  const row = RemoteRowSchema.safeParse(item);
  if (!row.success) return undefined;
  const { attention, state_age_s, ...view } = row.data;
  const status = view.status;
  return {
    ...view,
    host: host.name,
    attention: attention ?? (status === "discovered" ? "discovered" : status),
    state_source: "host",
    state_age_s: state_age_s ?? ageSeconds(view.status_changed_at, now),
  };
}

export type RemoteCounts = Record<AttentionRank, number> & { limited: number; total: number };

/** The host's counts by state (`status --format json --local`). */
export async function readRemoteCounts(host: HostEntry, context: RemoteContext): Promise<{ counts?: RemoteCounts; report: HostReport }> {
  const read = await readRemoteJson(host, ["status", "--format", "json", "--local"], context);
  if (!read.ok) return { report: read.report };
  const shape = Object.fromEntries([...ATTENTION_ORDER, "total"].map((key) => [key, z.int().check(z.gte(0), z.lte(1_000_000))]));
  // `limited` (errors that are limits) is absent from a host whose tongs-agents predates it: none are counted there.
  const parsed = z.object({ ...shape, limited: z._default(z.int().check(z.gte(0), z.lte(1_000_000)), 0) }).safeParse(read.value);
  if (!parsed.success)
    return {
      report: { ...read.report, state: "failed", detail: `answer is not a status count (${describeIssue(parsed.error, read.value)})` },
    };
  return { counts: parsed.data as RemoteCounts, report: read.report };
}
