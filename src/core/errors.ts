// The small vocabulary of expected failures, and the one table that maps them to exit codes (used only by the CLI).

/** What an ambiguity error lists about each candidate (a SessionView has all of it). */
export interface Candidate {
  readonly id: string;
  readonly short_id: string;
  readonly harness: string;
  readonly status: string;
  readonly cwd: string;
}

export type Failure =
  | { ok: false; reason: "usage"; detail: string }
  | { ok: false; reason: "not-found"; detail: string }
  | { ok: false; reason: "ambiguous"; detail: string; candidates: readonly Candidate[] }
  | { ok: false; reason: "state-dir"; detail: string }
  | { ok: false; reason: "config"; detail: string }
  | { ok: false; reason: "io"; detail: string };

/** Exit codes, documented in the README: 0 success; the others per outcome. */
export const EXIT_CODES = {
  ok: 0,
  error: 1,
  usage: 2,
  "not-found": 3,
  ambiguous: 4,
  /** focus: at least one of selection and activation succeeded, not both. */
  partial: 5,
  /** focus: the target was located or looked for, and nothing succeeded. */
  failed: 6,
  /** focus: nothing can be focused (stale or ended session, no terminal target, terminal unreachable). */
  unavailable: 7,
  /** wait: the session was not in the state before the timeout. */
  timeout: 8,
  /** wait: the session ended before it reached the state. */
  ended: 9,
  /** answer: nothing was sent (not waiting, the wait moved on, no such dialog on screen, a reply it does not offer). */
  refused: 10,
} as const;

/** Exit code of a focus state: 0 only for complete. */
export function exitCodeOfFocus(state: "complete" | "partial" | "failed" | "unavailable" | "ambiguous" | "not-found"): number {
  return state === "complete" ? EXIT_CODES.ok : EXIT_CODES[state];
}

export function exitCodeOf(failure: Failure): number {
  switch (failure.reason) {
    case "usage":
      return EXIT_CODES.usage;
    case "not-found":
      return EXIT_CODES["not-found"];
    case "ambiguous":
      return EXIT_CODES.ambiguous;
    default:
      return EXIT_CODES.error;
  }
}
