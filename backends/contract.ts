// The contract between the focus service (src/focus/service.ts) and the terminal backends (backends/*.ts). docs/focus.md
// explains each state and backend.
import type { Candidate } from "../src/core/errors.ts";
import type { Runner } from "../src/core/exec.ts";
import type { Terminal } from "../src/core/schema.ts";

/** One of the two independent things focus does: select the target (pane/tab), or activate (the user now sees it). */
export interface Operation {
  readonly attempted: boolean;
  readonly succeeded: boolean;
  readonly detail: string;
}

export const done = (detail: string): Operation => ({ attempted: true, succeeded: true, detail });
export const failed = (detail: string): Operation => ({ attempted: true, succeeded: false, detail });
export const skipped = (detail: string): Operation => ({ attempted: false, succeeded: false, detail });

/**
 * - complete: the target was located, selected, and the user now sees it.
 * - partial: at least one of selection and activation succeeded, not both.
 * - failed: the target was located (or looked for) and neither operation succeeded.
 * - unavailable: nothing can be focused: stale or ended session, no terminal target, terminal not reachable.
 * - ambiguous / not-found: the query matched several sessions / none.
 */
export type FocusState = "complete" | "partial" | "failed" | "unavailable" | "ambiguous" | "not-found";

export interface FocusedSession {
  readonly id: string;
  readonly short_id: string;
  readonly harness: string;
  readonly cwd: string;
  readonly status: string;
  readonly pid: number | null;
}

export interface FocusResult {
  readonly state: FocusState;
  readonly session: FocusedSession | null;
  /** The backend that captured the target and was asked to focus it. */
  readonly backend: string | null;
  /** Human description of the target, e.g. `tmux pane %3 in session work (/tmp/tmux-0/default)`. */
  readonly target: string;
  readonly located: boolean;
  readonly selection: Operation;
  readonly activation: Operation;
  readonly detail: string;
  /** Sessions a query matched when it was ambiguous. */
  readonly candidates: readonly Candidate[];
}

/** What a backend reports; the service turns it into a FocusResult. */
export interface BackendOutcome {
  readonly located: boolean;
  readonly target: string;
  readonly selection: Operation;
  readonly activation: Operation;
  /** Set when the terminal itself cannot be reached (remote control off, socket gone): state `unavailable`. */
  readonly unavailable?: string;
}

export interface FocusContext {
  readonly run: Runner;
  /** The caller's environment: its own TMUX tells which tmux client the user is at. */
  readonly env: NodeJS.ProcessEnv;
  /** The client tty the focus is pinned to (`--client`; a popup passes `#{client_tty}`). */
  readonly client: string | undefined;
  readonly platform: NodeJS.Platform;
  /** Environment of another process (Linux /proc/PID/environ), to find the terminal a tmux client runs in. */
  readonly environOf: (pid: number) => Promise<Record<string, string> | undefined>;
  /** Raise the terminal window whose environment is given, through the backend that owns it. */
  readonly raiseOuter: (env: Record<string, string>) => Promise<Operation>;
}

export interface FocusBackend<Target = unknown> {
  readonly id: string;
  readonly displayName: string;
  /** The target this backend can reach from a captured terminal; undefined when the terminal is not this backend's. */
  detect(terminal: Terminal): Target | undefined;
  describe(target: Target): string;
  focus(target: Target, context: FocusContext): Promise<BackendOutcome>;
  /**
   * Raise the OS window of this terminal, given the environment of a process running in it (a tmux client).
   * Undefined when that environment is not this terminal's.
   */
  raise?(env: Record<string, string>, context: FocusContext): Promise<Operation | undefined>;
}

/** A target found by a registered backend: only that backend can describe or focus it. */
export interface LocatedTarget {
  readonly backend: string;
  describe(): string;
  focus(context: FocusContext): Promise<BackendOutcome>;
}

/** A backend as the focus service holds it: its target type is sealed inside `locate`, so no cast is ever needed. */
export interface RegisteredBackend {
  readonly id: string;
  readonly displayName: string;
  locate(terminal: Terminal): LocatedTarget | undefined;
  raise(env: Record<string, string>, context: FocusContext): Promise<Operation | undefined>;
}

export function registerBackend<Target>(backend: FocusBackend<Target>): RegisteredBackend {
  return {
    id: backend.id,
    displayName: backend.displayName,
    locate(terminal) {
      const target = backend.detect(terminal);
      if (target === undefined) return undefined;
      return { backend: backend.id, describe: () => backend.describe(target), focus: (context) => backend.focus(target, context) };
    },
    raise: async (env, context) => backend.raise?.(env, context),
  };
}
