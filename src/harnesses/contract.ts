// What a harness adapter declares: its registry entry (process names, accepted events, how its identity is established,
// what install says of it and what it cannot report). Each harness is one folder (src/harnesses/<id>/) holding this
// entry (harness.ts), its installer (installer.ts), its stated-state reader (stated.ts) where it has one, its doctor
// facts and fixtures, plus one line in the registry table (registry.ts); docs/architecture.md has the checklist.
import type { ProcessSource } from "../core/proc.ts";
import type { Limit, LifecycleStatus, Terminal, WaitEffect } from "../core/schema.ts";
import type { UsageFacts } from "../core/usage-facts.ts";

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
  // PreCompact, PostCompact: the harness compacts the conversation (docs/contract.md, "Compaction and subagents").
  "compact-start",
  "compact-end",
  // SubagentStart, SubagentStop: they change the subagents a session runs, never its state.
  "subagent-start",
  "subagent-stop",
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

/**
 * - hooks: installs command hooks; extension: installs an extension that runs in the harness's own process (each has
 *   an installer: installer.ts in its folder, exporting `installer`).
 * - discovery: its processes are listed without a record; focus: its records carry a terminal target.
 * - stated: it writes turn outcomes no hook reports into files of its own (stated.ts in its folder, exporting `stated`).
 */
export type Capability = "hooks" | "extension" | "discovery" | "focus" | "stated";

/** An install option only this harness has (`install --<name>`), passed to its installer in `Intent.options`. */
export interface InstallOption {
  readonly name: string;
  readonly help: string;
}

/** What a record can show about a session, each a row of the degradation table (what a user watches for). */
export const REPORTED = ["started", "running", "tool", "waiting", "idle", "error", "interrupted", "ended"] as const;
export type Reported = (typeof REPORTED)[number];

/**
 * How a harness states one of them:
 * - `hook` / `extension`: an event of its own (a command hook; the bridge or plugin in its process);
 * - `stated`: written in its own files (`from`: which), read by its stated-state reader (stated.ts);
 * - `none`: it states nothing we could read (`why`), so a record cannot show it;
 * - `untested`: not yet seen either way on the proven versions (`why`).
 * `limit` says what the harness leaves out even so, in words a user can act on.
 */
export type Report =
  | { readonly by: "hook" | "extension"; readonly limit?: string }
  | { readonly by: "stated"; readonly from: string; readonly limit?: string }
  | { readonly by: "none"; readonly why: string }
  | { readonly by: "untested"; readonly why: string };

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
  /** What install does for it, in a few words (`install --help` lists it under --agent). */
  readonly installHelp?: string;
  /** Installed by `install` with no --agent. */
  readonly installByDefault?: boolean;
  readonly installOptions?: readonly InstallOption[];
  /**
   * Its degradation tier: for each thing a record can show, how the harness states it, or why it cannot. The one table
   * `install`, `doctor` and docs/support-matrix.md ("What each harness can report") read (reports.ts). Only what the
   * harness itself states; never a guess about what a state might be.
   */
  readonly reports: Readonly<Record<Reported, Report>>;
  /**
   * The versions of the harness its hooks (or extension) were proven on: the pinned versions of the live suites
   * (test/live/harnesses.json; a test holds them equal). `doctor` says when the installed one is another.
   */
  readonly provenVersions: readonly string[];
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
  /** Emitter harnesses: events that report a limit (docs/contract.md, "Limits"); the event's detail is its message. */
  readonly emitterLimits?: Readonly<Record<string, Pick<Limit, "kind" | "stated">>>;
  /**
   * Native payload members this harness names differently (Copilot CLI's camelCase): its name -> the name the pipeline
   * reads (NativePayloadSchema). For such a harness only its own name is read; a member under the target name is not.
   * A dotted name is a string inside a small top-level object (Cline's `sessionContext.rootSessionId`, src/hook/input.ts).
   */
  readonly nativeFields?: Readonly<Record<string, string>>;
  /**
   * The harness names no directory its payload's top level holds, and runs each hook in the session's directory
   * (Cline 3.0.65: `workspaceRoots` is a list, the hook's cwd its first): the hook's own working directory is the cwd.
   */
  readonly hookCwdIsSession?: boolean;
  /**
   * Where the harness keeps a session's transcript when a payload does not say (Copilot CLI names it only at agentStop):
   * from the session id and the hook's environment, as the harness resolves it. Checked like a stated path
   * (isTranscriptPath) before it is stored; a file that is not there is no fact.
   */
  readonly transcriptPathOf?: (sessionId: string, env: NodeJS.ProcessEnv) => string | undefined;
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
  /** A limit ended the turn (status `error`; docs/contract.md, "Limits"). */
  readonly limit?: Limit;
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
  /**
   * The fact one parsed transcript line states about `subject`, if any; `facts` is what the lines before it stated
   * (a limit's reset is stated by the quota windows written before the failure).
   */
  readonly interpretLine: (line: unknown, subject: StatedSubject, facts: UsageFacts) => StatedFact | undefined;
  /**
   * What the transcript states beside turn outcomes (docs/limits.md): lines with one of `usageMentions` are parsed and
   * handed to `readUsage`, which returns the facts as they stand after the line. `complete` is false when the reader
   * began past the file's start (earlier lines were never read: sums would miss them).
   */
  readonly usageMentions?: readonly string[];
  readonly readUsage?: (line: unknown, subject: StatedSubject, facts: UsageFacts, complete: boolean) => UsageFacts;
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
