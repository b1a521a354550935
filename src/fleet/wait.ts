// Wait until one session reaches a state: for scripts, and for agents that orchestrate other agents (`tongs-agents
// wait`, the MCP tool wait_for_session). The session is resolved once; then its record is re-read whenever the
// sessions directory changes, and at least once a second for liveness (a process that dies sends no event).
import { watch, type FSWatcher } from "node:fs";
import { sessionsDirOf } from "../store/paths.ts";
import { isSettleMarker } from "../store/sessions-watch.ts";
import { findSession, type FindResult, type FleetContext } from "./queries.ts";
import { loadFleet } from "./sessions.ts";
import type { SessionView } from "./view.ts";

/** What `--until` accepts. `attention`: the agent is not working and the user is needed (waiting, error or idle). */
export const WAIT_TARGETS = ["waiting", "idle", "error", "ended", "attention"] as const;
export type WaitTarget = (typeof WAIT_TARGETS)[number];

export type WaitResult =
  | { ok: true; outcome: "reached"; session: SessionView }
  | { ok: false; reason: "timeout"; detail: string; session: SessionView }
  | { ok: false; reason: "ended"; detail: string; session: SessionView }
  | Exclude<FindResult, { ok: true }>;

/** How often liveness is re-checked when nothing in the sessions directory changes. */
const RECHECK_MS = 1000;

export function reaches(session: SessionView, until: WaitTarget): boolean {
  if (until === "attention") return session.status === "waiting" || session.status === "error" || session.status === "idle";
  return session.status === until;
}

export async function waitForSession(
  context: FleetContext,
  query: string,
  until: WaitTarget,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<WaitResult> {
  const found = await findSession(context, query);
  if (!found.ok) return found;
  // The deadline is real time, whatever clock the records are judged by (tests freeze that one).
  const deadline = performance.now() + timeoutMs;
  let session = found.session;
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(sessionsDirOf(context.stateDir), (_event, name) => {
      // The keypress server's settle markers say nothing about any session.
      if (!isSettleMarker(name)) wake?.();
    });
    watcher.on("error", () => undefined);
  } catch {
    // No watch (the directory vanished, too many watches): the once-a-second re-check still sees every change.
  }
  try {
    for (;;) {
      if (reaches(session, until)) return { ok: true, outcome: "reached", session };
      if (session.status === "ended") return { ok: false, reason: "ended", detail: `the session ended before it was ${until}`, session };
      const left = deadline - performance.now();
      if (left <= 0 || signal?.aborted)
        return {
          ok: false,
          reason: "timeout",
          detail: `the session was still ${session.status} after ${Math.round(timeoutMs / 1000)} s`,
          session,
        };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(RECHECK_MS, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        signal?.addEventListener("abort", wake, { once: true });
      });
      wake = undefined;
      const fleet = await loadFleet(context, { discover: false });
      // A record that disappeared (pruned) is as good as ended.
      session = fleet.sessions.find((candidate) => candidate.id === session.id) ?? { ...session, status: "ended" };
    }
  } finally {
    watcher?.close();
  }
}
