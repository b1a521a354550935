// The contract between the terminal backends (backends/<terminal>/) and the services that use them: the focus service
// (src/focus/), the notifier and the picker. docs/focus.md explains each backend.
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

/** What a backend reports; the focus service turns it into a FocusResult (src/focus/result.ts). */
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

/** What reading a terminal needs: the process runner, and the caller's environment (its DISPLAY, say). */
export interface ReadContext {
  readonly run: Runner;
  readonly env: NodeJS.ProcessEnv;
}

/** What a pane shows now (its last lines), or why it cannot be read. */
export type Capture = { readonly lines: string[] } | { readonly note: string };

/** Whether keys reached a target (each a key name such as `1`, `Enter`, `Escape`; never literal text). */
export type KeysResult = { readonly ok: true } | { readonly ok: false; readonly detail: string };

/** Whether a target's window has the desktop's focus (undefined: cannot be known), and the window in words. */
export interface WindowFocus {
  readonly focused: boolean | undefined;
  readonly where: string;
}

/**
 * One terminal's knowledge, behind one contract: which captured terminals are its own, and what it can do with them.
 * Focus is what every backend does; the rest is offered where the terminal allows it.
 */
export interface TerminalBackend<Target = unknown> {
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
  /** The last `lines` lines the target shows (the picker's preview). */
  capture?(target: Target, lines: number, context: ReadContext): Promise<Capture>;
  /** Does the target's window have focus? (The notifier stays quiet for what the user is looking at.) */
  windowFocus?(target: Target, context: ReadContext): Promise<WindowFocus>;
  /**
   * Press keys in the target (answering a dialog, src/answer/): only after the caller read, with `capture`, that the
   * target shows what the keys are meant for. Absent where the terminal cannot take keys from outside.
   */
  sendKeys?(target: Target, keys: readonly string[], context: ReadContext): Promise<KeysResult>;
}

/** A target found by a registered backend: only that backend can describe, focus or read it. */
export interface LocatedTarget {
  readonly backend: string;
  describe(): string;
  focus(context: FocusContext): Promise<BackendOutcome>;
  /** Absent where the backend cannot read what its target shows. */
  readonly capture?: (lines: number, context: ReadContext) => Promise<Capture>;
  /** Absent where the backend cannot tell whether its target's window has focus. */
  readonly windowFocus?: (context: ReadContext) => Promise<WindowFocus>;
  /** Absent where the backend cannot press keys in its target. */
  readonly sendKeys?: (keys: readonly string[], context: ReadContext) => Promise<KeysResult>;
}

/** A backend as its users hold it: its target type is sealed inside `locate`, so no cast is ever needed. */
export interface RegisteredBackend {
  readonly id: string;
  readonly displayName: string;
  locate(terminal: Terminal): LocatedTarget | undefined;
  raise(env: Record<string, string>, context: FocusContext): Promise<Operation | undefined>;
}

export function registerBackend<Target>(backend: TerminalBackend<Target>): RegisteredBackend {
  return {
    id: backend.id,
    displayName: backend.displayName,
    locate(terminal) {
      const target = backend.detect(terminal);
      if (target === undefined) return undefined;
      const { capture, windowFocus, sendKeys } = backend;
      return {
        backend: backend.id,
        describe: () => backend.describe(target),
        focus: (context) => backend.focus(target, context),
        ...(capture ? { capture: (lines: number, context: ReadContext) => capture.call(backend, target, lines, context) } : {}),
        ...(windowFocus ? { windowFocus: (context: ReadContext) => windowFocus.call(backend, target, context) } : {}),
        ...(sendKeys ? { sendKeys: (keys: readonly string[], context: ReadContext) => sendKeys.call(backend, target, keys, context) } : {}),
      };
    },
    raise: async (env, context) => backend.raise?.(env, context),
  };
}
