// The hook's one call into notifications, made after the record is written and its lock released. It does nothing
// unless the record just entered a state that may notify (waiting, error, idle) and that change was not handled yet;
// then it starts the notifier (dist/notify.cjs) detached, with its output ignored, and does not wait for it.
// Reading the configuration, finding channels, coalescing a burst and talking to D-Bus, tmux or a tty all happen in
// that process, never on the agent's path (docs/notifications.md, "Cost").
import { digestOf } from "../core/identity.ts";
import type { LifecycleEvent } from "../core/schema.ts";
import { readRecord, recordPath } from "../store/records.ts";
import { alreadyHandled, changeMark } from "../store/notify-ledger.ts";
import { notifierBundle, startDetached, type StartNotifier } from "../store/notifier-process.ts";

/** `TONGS_AGENTS_NOTIFY=off` in the agent's environment: no notifier is started (the test sandbox sets it). */
export const NOTIFY_ENV = "TONGS_AGENTS_NOTIFY";

/** States the notifier looks at; whether each one notifies is the notifier's decision (config.ts). */
const MAY_NOTIFY: ReadonlySet<string> = new Set(["waiting", "error", "idle"]);

/**
 * Start a notifier when `applied` (the events just written, in order) left the record in a state that may notify and
 * this change of state was not handled yet. Never throws; returns whether a notifier was started.
 */
export function notifyOnChange(
  applied: readonly { readonly event: LifecycleEvent }[],
  sessionsDir: string,
  context: { readonly stateDir: string; readonly env: NodeJS.ProcessEnv },
  { bundle = notifierBundle, start = startDetached }: { bundle?: () => string | undefined; start?: StartNotifier } = {},
): boolean {
  try {
    // A subagent's start or stop leaves the state as it was: the state events before it decide.
    const last = applied.filter(({ event }) => !event.subagent).at(-1)?.event;
    if (!last || !MAY_NOTIFY.has(last.status) || context.env[NOTIFY_ENV] === "off") return false;
    const digest = digestOf(last.canonicalId);
    if (digest === undefined) return false;
    // Another hook may have written since: the record says what the state is now.
    const current = readRecord(recordPath(sessionsDir, digest));
    if (current.kind !== "record" || !MAY_NOTIFY.has(current.record.status)) return false;
    if (alreadyHandled(context.stateDir, digest, changeMark(current.record.status, current.record.status_changed_at))) return false;
    const path = bundle();
    if (path === undefined) return false;
    start(path, ["deliver", context.stateDir, last.canonicalId], context.env);
    return true;
  } catch {
    return false;
  }
}
