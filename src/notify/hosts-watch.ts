// Told about agents on other machines (docs/notifications.md, "Agents on SSH hosts"): the keypress server, already
// resident on the user's machine, asks each configured SSH host for its sessions that may notify (`tongs-agents notify
// changes --json` there, through the hosts machinery: one ssh, the host's read bound, the answer checked row by row) and
// notifies here, with the rules local sessions follow: once per change of state (a mark per session and host, kept
// here), not for a session the user looks at (the host judges that with its own survey of its panes), the same config
// and mute. No daemon on the host, none added here. At most one read per host in flight; a host that does not answer
// is asked again later and later (doubling, at most every 5 minutes) until it answers.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../core/sha256.ts";
import type { Terminal } from "../core/schema.ts";
import { changeMark, notifyDirOf } from "../store/notify-ledger.ts";
import { ensurePrivateDir } from "../store/paths.ts";
import { readTextFile, writeFileAtomic } from "../store/records.ts";
import { isNotifyState, type NotifyConfig, type NotifyState } from "./config.ts";
import type { ClickOutcome } from "./contract.ts";
import { deliveryLog, type BatchReport, type BatchSession } from "./deliver.ts";
import { muteState } from "./mute.ts";
import { cleanLine } from "./sanitize.ts";

/** The longest a host that does not answer waits before it is asked again. */
export const MAX_BACKOFF_MS = 5 * 60_000;
/** How often the watch looks for a host that is due (each host is asked every `hosts_poll_seconds`). */
export const TICK_MS = 1000;

/** A session on a host, as the host's answer gave it and the hosts machinery checked it (src/hosts/changes.ts). */
export interface RemoteChange {
  readonly row: {
    readonly id: string;
    readonly short_id: string;
    readonly harness_name: string;
    readonly status: string;
    readonly status_changed_at: string;
    readonly cwd: string;
    readonly detail: string;
    readonly terminal: Terminal;
  };
  readonly on_screen: boolean;
  readonly on_screen_why: string;
  readonly where: string;
}

export type RemoteChanges =
  | { readonly ok: true; readonly changes: readonly RemoteChange[]; readonly invalid: number }
  | { readonly ok: false; readonly said: string };

/** A configured host, and how to read its changes (one ssh, under its bound). */
export interface WatchedHost {
  readonly name: string;
  readonly read: () => Promise<RemoteChanges>;
}

export interface HostWatchWorld {
  readonly stateDir: string;
  /** The configured hosts, read again at each round (a host added meanwhile is asked too). */
  readonly hosts: () => readonly WatchedHost[];
  readonly config: () => NotifyConfig;
  /** Tell the user here about these sessions (deliver.ts, through the channels that need no local pane). */
  readonly deliver: (sessions: readonly BatchSession[], config: NotifyConfig) => Promise<BatchReport>;
  /** A click on the notification: what `focus HOST:ID` does; returns its one-line result for the log. */
  readonly focus: (query: string) => Promise<string>;
  /** One JSON line in notify.log. */
  readonly log: (entry: Record<string, unknown>) => void;
  readonly now?: () => number;
}

/** Per host: whether a read is in flight, when it is due again, and the changes its last answer held. */
interface HostState {
  busy: boolean;
  failures: number;
  nextAt: number;
  /** What the last read came to, logged when it changes (a host down is said once, not at every read). */
  said: string;
  /** Session id there -> the mark of the change it is in (for a notification still worth a click). */
  changes: Map<string, string>;
}

type Change = RemoteChange & { readonly row: { readonly status: NotifyState } };

export interface HostWatch {
  /** Ask every host that is due and not being read; resolves when those reads (and their deliveries) are done. */
  round(): Promise<void>;
}

export function createHostWatch(world: HostWatchWorld): HostWatch {
  const now = world.now ?? Date.now;
  const states = new Map<string, HostState>();

  async function read(host: WatchedHost, config: NotifyConfig, state: HostState): Promise<void> {
    const answer = await host.read();
    if (!answer.ok) {
      // Asked again after the poll interval doubled per failure in a row, at most MAX_BACKOFF_MS.
      state.failures++;
      const retryMs = Math.min(config.hostsPollMs * 2 ** state.failures, MAX_BACKOFF_MS);
      state.nextAt = now() + retryMs;
      const { said } = answer;
      if (said !== state.said) world.log({ outcome: "host", host: host.name, state: cleanLine(said, 300), retry_in_ms: retryMs });
      state.said = said;
      return;
    }
    state.failures = 0;
    state.nextAt = now() + config.hostsPollMs;
    if (state.said !== "ok") world.log({ outcome: "host", host: host.name, state: "ok" });
    state.said = "ok";
    const changes = answer.changes.filter((change): change is Change => isNotifyState(change.row.status));
    const invalid = answer.invalid + answer.changes.length - changes.length;
    state.changes = new Map(changes.map(({ row }) => [row.id, changeMark(row.status, row.status_changed_at)]));
    await notify(host, changes, invalid, config, state);
  }

  async function notify(host: WatchedHost, changes: readonly Change[], invalid: number, config: NotifyConfig, state: HostState) {
    const ledger = hostLedger(world.stateDir, host.name);
    const muted = muteState(world.stateDir, now()).muted;
    const chosen: (BatchSession & { host: { name: string; id: string } })[] = [];
    const skipped: string[] = [];
    for (const { row, on_screen, on_screen_why, where } of changes) {
      const mark = changeMark(row.status, row.status_changed_at);
      // The common case at every read: a change already handled (notified or not) says nothing.
      if (ledger.handled(row.id, mark)) continue;
      ledger.mark(row.id, mark);
      const label = `${host.name}:${row.short_id}`;
      if (on_screen) skipped.push(`${label}: ${cleanLine(on_screen_why, 160)}`);
      else if (muted) skipped.push(`${label}: muted`);
      else if (config.quiet) skipped.push(`${label}: quiet`);
      else if (config.states[row.status].length === 0) skipped.push(`${label}: ${row.status} does not notify (config)`);
      else
        chosen.push({
          id: `${host.name}:${row.id}`,
          terminal: row.terminal,
          onHost: `on ${host.name}: ${where}`,
          harnessName: row.harness_name,
          cwd: row.cwd,
          status: row.status,
          detail: row.detail,
          changedAt: row.status_changed_at,
          host: { name: host.name, id: row.id },
        });
    }
    // A session no longer in a state that notifies (or gone) has no change to remember: its next one is new.
    ledger.keepOnly(changes.map(({ row }) => row.id));
    if (invalid > 0) skipped.push(`${invalid} row(s) from ${host.name} did not fit and were left out`);
    if (chosen.length === 0) {
      if (skipped.length > 0) world.log({ outcome: "nothing", host: host.name, skipped });
      return;
    }
    const report = await world.deliver(chosen, config);
    world.log({
      outcome: "delivered",
      host: host.name,
      sessions: report.notified,
      skipped,
      ...deliveryLog(report),
    });
    if (!report.pending) return;
    // The click is waited for beside the reads (the server is resident): withdrawn once no session named is still in
    // the change it was notified for, as the host's last answer says.
    const { click } = report.pending;
    const marks = new Map(chosen.map((session) => [session.host.id, changeMark(session.status, session.changedAt)]));
    const stillWanted = () => [...marks].some(([id, mark]) => state.changes.get(id) === mark);
    void click
      .wait({ timeoutMs: config.clickWaitMs, stillWanted })
      .then(async (outcome: ClickOutcome) => {
        await click.close();
        if (outcome.kind === "clicked")
          world.log({ outcome: "click", result: "clicked", session: outcome.sessionId, focus: await world.focus(outcome.sessionId) });
        else world.log({ outcome: "click", result: outcome.kind, detail: "detail" in outcome ? outcome.detail : "" });
      })
      .catch((error: unknown) => world.log({ outcome: "click", result: "failed", detail: cleanLine(String(error), 300) }));
  }

  return {
    async round() {
      const hosts = world.hosts();
      for (const name of states.keys()) if (!hosts.some((host) => host.name === name)) states.delete(name);
      const due = hosts.filter((host) => {
        const state = states.get(host.name);
        return state === undefined || (!state.busy && now() >= state.nextAt);
      });
      if (due.length === 0) return;
      const config = world.config();
      await Promise.all(
        due.map(async (host) => {
          let state = states.get(host.name);
          if (!state) states.set(host.name, (state = { busy: false, failures: 0, nextAt: 0, said: "", changes: new Map() }));
          state.busy = true;
          try {
            await read(host, config, state);
          } catch (error) {
            world.log({ outcome: "bug", host: host.name, detail: cleanLine(String(error), 300) });
            state.nextAt = now() + config.hostsPollMs;
          } finally {
            state.busy = false;
          }
        }),
      );
    },
  };
}

/** Run the watch every TICK_MS until stopped. A round never overlaps a host's own read in flight. */
export function startHostWatch(world: HostWatchWorld, tickMs: number = TICK_MS): { readonly watch: HostWatch; stop(): void } {
  const watch = createHostWatch(world);
  const timer = setInterval(() => void watch.round(), tickMs);
  timer.unref();
  void watch.round();
  return { watch, stop: () => clearInterval(timer) };
}

/**
 * Which change of each host session was handled: `<state dir>/notify/hosts/<host>/<sha256 of the id>`, holding the
 * change's mark, as notify/sent/ does for this machine's records (store/notify-ledger.ts).
 */
export function hostLedger(stateDir: string, host: string) {
  const dir = join(notifyDirOf(stateDir), "hosts", host);
  const file = (id: string) => join(dir, sha256Hex(id).slice(0, 32));
  return {
    handled(id: string, mark: string): boolean {
      const read = readTextFile(file(id), 256);
      return read.kind === "text" && read.text === mark;
    },
    /** Best effort: a mark not written means the change may be told again at the next read. */
    mark(id: string, mark: string): void {
      if (!ensurePrivateDir(dir).ok) return;
      writeFileAtomic(file(id), mark, { maxBytes: 256 });
    },
    keepOnly(ids: readonly string[]): void {
      const kept = new Set(ids.map((id) => file(id)));
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names) if (!kept.has(join(dir, name))) rmSync(join(dir, name), { force: true });
    },
  };
}
