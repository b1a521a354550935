// Wait for a session on a host: the host is asked (`show` there, src/hosts/show.ts) every couple of seconds until the
// session is in the state, ends, or the caller's timeout passes. Each read is bounded by the host bound and by the
// time left, so the wait never outlasts the timeout by more than one connection attempt. A read that fails midway
// (the network dropped) is not an outcome: the last state the host reported stands, and the timeout says so.
import { reaches, type WaitTarget } from "../fleet/wait.ts";
import type { HostEntry } from "./config.ts";
import type { HostedSession, RemoteContext } from "./remote.ts";
import { showOnHost, type HostShow } from "./show.ts";

/** How often the host is asked again: a read is an ssh round trip over the shared connection. */
export const HOST_POLL_MS = 2000;
/** The shortest read worth starting near the deadline (ssh needs a round trip at least). */
const MIN_READ_MS = 250;

export type HostWaitResult =
  | { ok: true; outcome: "reached"; host: string; session: HostedSession }
  | { ok: false; reason: "timeout" | "ended"; host: string; detail: string; session: HostedSession }
  | Exclude<HostShow, { ok: true }>;

export interface HostWaitOptions {
  readonly pollMs?: number;
  /** Real time, whatever clock the records are judged by. */
  readonly clock?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export async function waitOnHost(
  host: HostEntry,
  query: string,
  until: WaitTarget,
  timeoutMs: number,
  context: RemoteContext,
  {
    pollMs = HOST_POLL_MS,
    clock = () => performance.now(),
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }: HostWaitOptions = {},
): Promise<HostWaitResult> {
  const deadline = clock() + timeoutMs;
  const bounded = (): RemoteContext => ({ ...context, limitMs: Math.max(MIN_READ_MS, deadline - clock()) });
  const first = await showOnHost(host, query, bounded());
  if (!first.ok) return first;
  let session = first.session;
  let lastProblem = "";
  for (;;) {
    if (reaches(session, until)) return { ok: true, outcome: "reached", host: host.name, session };
    if (session.status === "ended")
      return { ok: false, reason: "ended", host: host.name, detail: `the session ended before it was ${until}`, session };
    const left = deadline - clock();
    if (left <= 0)
      return {
        ok: false,
        reason: "timeout",
        host: host.name,
        detail: `the session was still ${session.status} after ${Math.round(timeoutMs / 1000)} s${lastProblem ? ` (last read: ${lastProblem})` : ""}`,
        session,
      };
    await sleep(Math.min(pollMs, left));
    if (deadline - clock() <= 0) continue;
    // The canonical id from now on: the query named one session, and it must stay that one.
    const read = await showOnHost(host, session.id, bounded());
    if (read.ok) {
      session = read.session;
      lastProblem = "";
    } else if (read.reason === "not-found")
      session = { ...session, status: "ended" }; // pruned there: as good as ended
    else lastProblem = read.detail;
  }
}
