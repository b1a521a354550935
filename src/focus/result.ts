// What focus answers (`focus --json`, the MCP tool focus_session, the picker, a notification's click): the state, the
// session, and what each operation did. docs/focus.md explains each state.
import type { Operation } from "../../backends/contract.ts";
import type { Candidate } from "../core/errors.ts";

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
