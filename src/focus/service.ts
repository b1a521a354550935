// The focus service: resolve a query to one session, refuse what cannot be focused honestly (stale, ended,
// unresolved, no terminal target), and ask the backend that captured the target to select it and show it.
import { BACKENDS } from "../../backends/registry.ts";
import { linuxEnvironOf } from "../core/environ.ts";
import { run as defaultRun, type Runner } from "../core/exec.ts";
import type { Terminal } from "../core/schema.ts";
import {
  failed,
  skipped,
  type BackendOutcome,
  type FocusContext,
  type RegisteredBackend,
  type Operation,
} from "../../backends/contract.ts";
import type { FocusResult, FocusState } from "./result.ts";
import { findSession, type FindResult, type FleetContext } from "../fleet/queries.ts";
import { markSeen } from "../fleet/seen.ts";
import { locateSessionUi } from "../fleet/ui-terminal.ts";
import { terminalOfProcess } from "../fleet/process-terminal.ts";
import type { SessionView } from "../fleet/view.ts";

export interface FocusServiceContext extends FleetContext {
  readonly env?: NodeJS.ProcessEnv;
  readonly client?: string | undefined;
  readonly run?: Runner;
  readonly platform?: NodeJS.Platform;
  readonly backends?: readonly RegisteredBackend[];
  readonly environOf?: FocusContext["environOf"];
  /** Finds the UI that shows a session whose recorded terminal is unprovable (defaults to the harness's own locator). */
  readonly locateUi?: typeof locateSessionUi;
}

const notTried = skipped("not attempted");

function result(state: FocusState, detail: string, extra: Partial<FocusResult> = {}): FocusResult {
  return {
    state,
    session: null,
    backend: null,
    target: "",
    located: false,
    selection: notTried,
    activation: notTried,
    detail,
    candidates: [],
    ...extra,
  };
}

export async function focusSession(query: string, options: FocusServiceContext): Promise<FocusResult> {
  const found = await findSession(options, query);
  return found.ok ? focusView(found.session, options) : unfound(found);
}

/** What focus answers for a query that resolved to no single session: not found, ambiguous, or no usable state dir. */
export function unfound(found: Exclude<FindResult, { ok: true }>): FocusResult {
  return found.reason === "state-dir"
    ? result("unavailable", found.detail)
    : result(found.reason, found.detail, found.reason === "ambiguous" ? { candidates: [...found.candidates] } : {});
}

/** Focus a session already resolved from a fresh listing (as `next` has one), without listing again. */
export async function focusView(session: SessionView, options: FocusServiceContext): Promise<FocusResult> {
  const { stateDir, environOf = linuxEnvironOf } = options;
  const summary = {
    id: session.id,
    short_id: session.short_id,
    harness: session.harness,
    cwd: session.cwd,
    status: session.status,
    pid: session.pid,
  };
  const unavailable = (detail: string) => result("unavailable", detail, { session: summary });
  if (session.stale) return unavailable(`stale: ${session.stale_reason}; not focusing whatever now lives in its terminal`);
  if (session.status === "ended") return unavailable("the session has ended");
  if (session.identity === "unresolved") return unavailable("the session's process was never identified, so its terminal is unknown");
  let terminal: Terminal = session.terminal;
  let via = "";
  if (session.identity === "discovered") {
    // No hook captured its terminal: the process's own environment (or its pane's shell's) says where it runs.
    const prefix = `pid:${session.pid}@`;
    const startToken = session.instance_id.startsWith(prefix) ? session.instance_id.slice(prefix.length) : undefined;
    const found =
      session.pid === null ? undefined : await terminalOfProcess(session.pid, { processes: options.processes, environOf, startToken });
    if (!found?.ok) return unavailable(`discovered process without hook events: ${found?.reason ?? "no process id"}`);
    terminal = found.terminal;
    via = `the terminal in ${found.evidence}`;
  } else if (terminal.unprovable) {
    // The harness may find the UI that shows this session from exact evidence, read now; otherwise say why not.
    const ui = await (options.locateUi ?? locateSessionUi)(session, {
      processes: options.processes,
      environOf,
      ...(options.listProcesses ? { listProcesses: options.listProcesses } : {}),
    });
    if (!ui?.ok) return unavailable(`no provable terminal target: ${terminal.unprovable}${ui ? `; ${ui.reason}` : ""}`);
    terminal = ui.terminal;
    via = `the terminal of ${ui.evidence}`;
  }

  const reached = await focusTerminal(terminal, options);
  if (!reached)
    return unavailable(
      "no terminal target recorded: the session did not run in a supported terminal (tmux, GNU screen, kitty, WezTerm, iTerm2, Terminal.app, X11)",
    );
  const focused: FocusResult = { ...reached, detail: [via, reached.detail].filter(Boolean).join("; "), session: summary };
  // The user has now seen it: an idle session stops ranking as "done, unseen" in the picker and `next`.
  if (focused.state === "complete" || focused.state === "partial") markSeen(stateDir, session.id);
  return focused;
}

/**
 * Bring one terminal target forward through the backend that recognises it (also used for the local terminal that
 * runs an ssh connection to a host, src/hosts/focus.ts). Undefined when no backend recognises the terminal.
 */
export async function focusTerminal(
  terminal: Terminal,
  {
    env = process.env,
    client,
    run = defaultRun,
    platform = process.platform,
    backends = BACKENDS,
    environOf = linuxEnvironOf,
  }: Pick<FocusServiceContext, "env" | "client" | "run" | "platform" | "backends" | "environOf">,
): Promise<FocusResult | undefined> {
  for (const backend of backends) {
    const target = backend.locate(terminal);
    if (target === undefined) continue;
    const context: FocusContext = {
      run,
      env,
      client,
      platform,
      environOf,
      raiseOuter: (outerEnv) => raiseOuter(outerEnv, backends, context),
    };
    // The backend that captured the target decides; a failure is reported, never retried through another backend.
    return { ...resultOf(await target.focus(context)), backend: backend.id };
  }
  return undefined;
}

export function stateOf(outcome: Pick<BackendOutcome, "located" | "selection" | "activation" | "unavailable">): FocusState {
  if (outcome.unavailable !== undefined) return "unavailable";
  if (outcome.located && outcome.selection.succeeded && outcome.activation.succeeded) return "complete";
  if (outcome.selection.succeeded || outcome.activation.succeeded) return "partial";
  return "failed";
}

function resultOf(outcome: BackendOutcome): FocusResult {
  const state = stateOf(outcome);
  const detail =
    outcome.unavailable ??
    [outcome.selection, outcome.activation]
      .filter((operation) => operation.attempted || !operation.succeeded)
      .map((operation) => operation.detail)
      .join("; ");
  return result(state, detail, {
    target: outcome.target,
    located: outcome.located,
    selection: outcome.selection,
    activation: outcome.activation,
  });
}

/** Raise the outer terminal window of a tmux/screen client through the first backend that recognises its environment. */
async function raiseOuter(env: Record<string, string>, backends: readonly RegisteredBackend[], context: FocusContext): Promise<Operation> {
  for (const backend of backends) {
    const raised = await backend.raise(env, context);
    if (raised) return raised;
  }
  return failed(
    "the client's terminal is not one tongs-agents can raise (no kitty, WezTerm, iTerm2, Terminal.app or X11 window id in its environment)",
  );
}

/** A boolean convenience for scripts: did at least one operation succeed? The CLI and MCP use the structured result. */
export function focusedAtAll(focus: FocusResult): boolean {
  return focus.selection.succeeded || focus.activation.succeeded;
}
