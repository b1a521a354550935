// A status segment that moves with the agent: after the drainer applies a batch that changed a session's state, every
// tmux server that shows our segment (src/store/status-servers.ts) redraws its status lines at once, instead of at its
// next status-interval (15 s by default). It runs in the drainer, after the record is written and its lock released:
// never on the agent's path (the shim returned long before). Redraws are coalesced: while one is under way, further
// changes ask for one more, never for one each.
import type { Runner } from "../core/exec.ts";
import { readRecord, recordPath } from "../store/records.ts";
import { forgetStatusServer, statusServers } from "../store/status-servers.ts";
import { refreshStatusLines, type RefreshOutcome } from "../../backends/tmux/refresh.ts";

/** Records whose last state is remembered; past it the memory starts again (a few redraws more, nothing lost). */
const MAX_REMEMBERED = 10_000;

export interface StatusRefresher {
  /** The drainer wrote the record `digest`: redraw the segments if its state is not the one last seen. */
  afterApply(sessionsDir: string, digest: string): void;
  /** Resolves once no redraw is under way (tests, the drainer's exit). */
  idle(): Promise<void>;
}

export function statusRefresher(
  stateDir: string,
  {
    run,
    refresh = refreshStatusLines,
    log = () => undefined,
  }: {
    run?: Runner;
    refresh?: (socket: string, options: { run?: Runner }) => Promise<RefreshOutcome>;
    log?: (entry: Record<string, unknown>) => void;
  } = {},
): StatusRefresher {
  const lastState = new Map<string, string>();
  let running: Promise<void> | undefined;
  let again = false;

  const redraw = async (): Promise<void> => {
    do {
      again = false;
      const sockets = statusServers(stateDir);
      const outcomes = await Promise.all(sockets.map((socket) => refresh(socket, run ? { run } : {})));
      sockets.forEach((socket, index) => {
        if (outcomes[index]?.kind === "gone") forgetStatusServer(stateDir, socket);
      });
      if (sockets.length > 0) log({ outcome: "status redrawn", servers: outcomes.map((outcome) => outcome?.kind) });
    } while (again);
  };

  return {
    afterApply(sessionsDir, digest) {
      try {
        const read = readRecord(recordPath(sessionsDir, digest));
        const state = read.kind === "record" ? `${read.record.status} ${read.record.status_changed_at}` : read.kind;
        if (lastState.get(digest) === state) return;
        if (lastState.size >= MAX_REMEMBERED) lastState.clear();
        lastState.set(digest, state);
      } catch {
        // unreadable now: redraw all the same, the segment reads what is there
      }
      if (running) {
        again = true;
        return;
      }
      running = redraw()
        .catch((error: unknown) => log({ outcome: "status redraw failed", detail: String(error) }))
        .finally(() => (running = undefined));
    },
    idle: async () => {
      while (running) await running;
    },
  };
}
