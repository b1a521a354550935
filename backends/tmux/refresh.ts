// Redraw the status line of every client of a tmux server now, re-running its `#()` commands: `refresh-client -S`
// marks a client's status for a forced redraw, and a forced redraw runs the status jobs again instead of showing their
// cached output (which tmux otherwise renews only every status-interval). One `list-clients`, then one call that
// refreshes them all.
import type { Runner } from "../../src/core/exec.ts";
import { tmux } from "./runner.ts";

export type RefreshOutcome =
  | { readonly kind: "refreshed"; readonly clients: number }
  | { readonly kind: "gone"; readonly detail: string }
  | { readonly kind: "failed"; readonly detail: string };

/** How long each tmux call may take: a hung server must not hold the drainer's next redraw. */
const CALL_MS = 2000;

/** `error connecting to SOCK (No such file or directory)`, `no server running on SOCK`: nothing listens there now. */
const GONE = /no server running|error connecting to|No such file or directory|Connection refused/;

export async function refreshStatusLines(socket: string, { run }: { run?: Runner } = {}): Promise<RefreshOutcome> {
  const listed = await tmux(["list-clients", "-F", "#{client_name}"], { socket, timeoutMs: CALL_MS, ...(run ? { run } : {}) });
  if (!listed.ok) {
    const detail = (listed.detail ?? listed.stderr).trim();
    return GONE.test(listed.stderr) ? { kind: "gone", detail } : { kind: "failed", detail };
  }
  const clients = listed.stdout.split("\n").filter((name) => name !== "");
  if (clients.length === 0) return { kind: "refreshed", clients: 0 };
  const commands = clients.flatMap((client, index) => [...(index > 0 ? [";"] : []), "refresh-client", "-S", "-t", client]);
  const refreshed = await tmux(commands, { socket, timeoutMs: CALL_MS, ...(run ? { run } : {}) });
  // A client that detached between the two calls ends the sequence there (tmux stops at a failed command): the
  // clients after it are redrawn at the next change, or at tmux's own interval.
  return refreshed.ok
    ? { kind: "refreshed", clients: clients.length }
    : { kind: "failed", detail: (refreshed.detail ?? refreshed.stderr).trim() };
}
