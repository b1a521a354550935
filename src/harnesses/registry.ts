// The registry of agent harnesses tongs-agents understands. An id or event that is not here is rejected.
import type { LifecycleStatus, WaitEffect } from "../core/schema.ts";

/** Native hook aliases, named after what happened, mapped to states in `events.ts`. */
export const NATIVE_ALIASES = [
  "session-start",
  "prompt-submit",
  "tool-use",
  "tool-done",
  "tool-failed",
  "permission-request",
  "notification",
  "stop",
  "stop-failure",
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
  readonly events: readonly HookAlias[];
  readonly identity: IdentityMode;
  readonly capabilities: readonly Capability[];
  /**
   * A harness process that hosts several UIs' sessions at once (Codex's shared app-server daemon). Its environment is
   * the environment of whichever UI started it, so a terminal target captured under it proves nothing.
   */
  readonly isSharedDaemon?: (argv: readonly string[]) => boolean;
  /** Emitter harnesses: event names accepted in `event_id`, each with the states it may carry. */
  readonly emitterEvents?: Readonly<Record<string, readonly LifecycleStatus[]>>;
  /** Emitter harnesses: how each event opens or closes waits (docs/contract.md, "Waiting"); absent: neither. */
  readonly emitterWaits?: Readonly<Record<string, WaitEffect>>;
}

export const HARNESSES = [
  {
    id: "claude",
    displayName: "Claude Code",
    processNames: ["claude", "claude.exe"],
    events: [
      "session-start",
      "prompt-submit",
      "tool-use",
      "tool-done",
      "tool-failed",
      "permission-request",
      "notification",
      "stop",
      "stop-failure",
      "elicitation",
      "session-end",
    ],
    identity: "process-ancestry",
    capabilities: ["hooks", "discovery", "focus"],
  },
  {
    id: "codex",
    displayName: "Codex CLI",
    processNames: ["codex"],
    events: ["session-start", "prompt-submit", "tool-use", "tool-done", "permission-request", "stop", "interrupt", "session-end"],
    identity: "process-ancestry",
    capabilities: ["hooks", "discovery", "focus"],
    isSharedDaemon: (argv) => argv.includes("app-server"),
  },
  {
    id: "pi",
    displayName: "Pi",
    processNames: ["pi"],
    events: [FLEET_EVENT],
    identity: "emitter-pid",
    capabilities: ["extension", "focus"],
    // Pi's extension events, kebab-cased (the bridge in pi-bridge/ maps them; docs/contract.md).
    emitterEvents: {
      "session-start": ["started"],
      "before-agent-start": ["running"],
      "agent-start": ["running"],
      "tool-execution-start": ["running"],
      "ui-prompt-start": ["waiting"],
      // Back to running inside an agent run; idle when the prompt was opened while Pi was idle (an extension command).
      "ui-prompt-end": ["running", "idle"],
      "agent-end": ["idle", "error"],
      "agent-settled": ["idle"],
      "session-shutdown": ["ended"],
    },
    // A dialog opens a wait and its end answers it; a new run, the end of a run and the session's start or end close
    // it. A tool starting meanwhile (Pi runs tools in parallel) leaves it open.
    emitterWaits: {
      "session-start": "clear",
      "before-agent-start": "clear",
      "agent-start": "clear",
      "ui-prompt-start": "input",
      "ui-prompt-end": "answered",
      "agent-end": "clear",
      "agent-settled": "clear",
      "session-shutdown": "clear",
    },
  },
] as const satisfies readonly Harness[];

export type HarnessId = (typeof HARNESSES)[number]["id"];

export function findHarness(id: string): Harness | undefined {
  return (HARNESSES as readonly Harness[]).find((harness) => harness.id === id);
}

export function acceptsEvent(harness: Harness, alias: string): alias is HookAlias {
  return (harness.events as readonly string[]).includes(alias);
}

export function hasCapability(harness: Harness, capability: Capability): boolean {
  return harness.capabilities.includes(capability);
}
