// What a harness adapter declares to the core: its registry entry (process names, accepted events, how its identity is
// established). Each harness has its own folder (src/harnesses/<id>/) holding this entry, its installer, doctor facts and
// fixtures; docs/architecture.md has the checklist for adding one.
import type { ProcessSource } from "../core/proc.ts";
import type { LifecycleStatus, Terminal, WaitEffect } from "../core/schema.ts";

/** Native hook aliases, named after what happened, mapped to states in `events.ts` (shared by every hook harness). */
export const NATIVE_ALIASES = [
  "session-start",
  "prompt-submit",
  "tool-use",
  // A tool starts after the user allowed it (Qwen Code fires PermissionRequest before PreToolUse): closes that wait.
  "tool-approved",
  "tool-done",
  "tool-failed",
  "permission-request",
  "notification",
  "stop",
  "stop-failure",
  "error-occurred",
  "elicitation",
  "interrupt",
  "session-end",
] as const;
export type NativeAlias = (typeof NATIVE_ALIASES)[number];

/** The one alias that carries the normalized payload (schema version 1). */
export const FLEET_EVENT = "fleet-event";
export type HookAlias = NativeAlias | typeof FLEET_EVENT;

/**
 * How a record's process identity is established.
 * - `process-ancestry`: the hook walks its own process ancestry to the harness process (matched by exact name);
 *   producer-supplied PIDs and sequences are never trusted.
 * - `emitter-pid`: the emitter (an in-process extension) supplies its own PID, an instance token and a sequence.
 */
export type IdentityMode = "process-ancestry" | "emitter-pid";

export type Capability = "hooks" | "extension" | "discovery" | "focus";

export interface Harness {
  readonly id: string;
  readonly displayName: string;
  /** Exact process names: comm, executable basename or argv[0] basename. Never a substring of other arguments. */
  readonly processNames: readonly string[];
  /**
   * Harnesses that run as `node <script>` (core/node-script.ts): the scripts, as `node_modules/<package>/<file>`.
   * Such a CLI may relaunch itself as a child node running the same package; the innermost one is the session's
   * process (its hooks run under it), so discovery counts that one.
   */
  readonly nodeScripts?: readonly string[];
  readonly events: readonly HookAlias[];
  readonly identity: IdentityMode;
  readonly capabilities: readonly Capability[];
  /**
   * A harness process that hosts several UIs' sessions at once (Codex's shared app-server daemon). Its environment is
   * the environment of whichever UI started it, so a terminal target captured under it proves nothing.
   */
  readonly isSharedDaemon?: (argv: readonly string[]) => boolean;
  /**
   * For a session recorded under a shared daemon (its terminal unprovable): find the one UI process that shows it from
   * exact evidence only, read at focus time, and that UI's terminal; or say why it cannot.
   */
  readonly locateUi?: (session: UiQuery, world: UiWorld) => Promise<UiLocation>;
  /**
   * One harness process hosts several sessions at once, all shown by its own UI (OpenCode's in-process server): a
   * session starting in it ends no other, unlike a harness that runs one session at a time (/clear, /new, resume).
   */
  readonly hostsManySessions?: boolean;
  /** Emitter harnesses: event names accepted in `event_id`, each with the states it may carry. */
  readonly emitterEvents?: Readonly<Record<string, readonly LifecycleStatus[]>>;
  /** Emitter harnesses: how each event opens or closes waits (docs/contract.md, "Waiting"); absent: neither. */
  readonly emitterWaits?: Readonly<Record<string, WaitEffect>>;
  /**
   * Native payload members this harness names differently (Copilot CLI's camelCase): its name -> the name the pipeline
   * reads (NativePayloadSchema). For such a harness only its own name is read; a member under the target name is not.
   */
  readonly nativeFields?: Readonly<Record<string, string>>;
}

/**
 * A turn outcome the harness wrote itself where no hook reports it (Claude's Esc, Codex's API error): read by the
 * fleet from the harness's transcript or its own session state (src/fleet/stated.ts, docs/contract.md).
 */
export interface StatedFact {
  readonly status: "idle" | "error";
  /** Event name, namespaced `<harness>.<name>` in the record's `last_event`. */
  readonly event: string;
  readonly detail: string;
  /** When the harness wrote it (ISO 8601), from the line or file itself. */
  readonly at: string;
}

/** The session a fact must belong to: the record's own ids, matched exactly. */
export interface StatedSubject {
  readonly sessionId: string;
  readonly pid: number | null;
  readonly processStart: string | null;
}

export interface StatedStateReader {
  /** Lines without one of these substrings are not parsed at all: most transcript lines are not turn outcomes. */
  readonly lineMentions: readonly string[];
  /** The fact one parsed transcript line states about `subject`, if any. */
  readonly interpretLine: (line: unknown, subject: StatedSubject) => StatedFact | undefined;
  /** A small file where the harness states a live process's turn state (Claude's `<config>/sessions/<pid>.json`). */
  readonly processState?: {
    readonly path: (transcriptPath: string, pid: number) => string | undefined;
    readonly interpret: (value: unknown, subject: StatedSubject) => StatedFact | undefined;
  };
}

/** The session whose UI is sought: its harness session id, and the daemon process its hooks ran under. */
export interface UiQuery {
  readonly session_id: string;
  readonly pid: number | null;
}

/** What a UI locator may read of the world: running processes (PID and name), their facts and environments. */
export interface UiWorld {
  readonly list: () => Promise<readonly { readonly pid: number; readonly name: string }[]>;
  readonly processes: ProcessSource;
  readonly environOf: (pid: number) => Promise<Record<string, string> | undefined>;
}

export type UiLocation =
  | { readonly ok: true; readonly pid: number; readonly terminal: Terminal; readonly evidence: string }
  | { readonly ok: false; readonly reason: string };
