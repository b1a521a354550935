// Which state change of each session was already handled by a notifier: one small file per record under
// <state dir>/notify/sent/, holding `<status> <status_changed_at>`. A state change notifies once: the hook reads the
// mark to skip starting a notifier for a change already handled, and the notifier (under its leader lock) re-checks
// and writes it. Imported by the hook: keep it to a few file calls.
import { join } from "node:path";
import { readTextFile, writeFileAtomic } from "./records.ts";

/** The notifiers' log in the state dir: one JSON line per step (the detached notifier's, the host watch's). */
export const NOTIFY_LOG = "notify.log";

export function notifyDirOf(stateDir: string): string {
  return join(stateDir, "notify");
}

function sentPath(stateDir: string, digest: string): string {
  return join(notifyDirOf(stateDir), "sent", digest);
}

/** The mark of one state change: the status and when the record entered it. */
export function changeMark(status: string, statusChangedAt: string): string {
  return `${status} ${statusChangedAt}`;
}

export function alreadyHandled(stateDir: string, digest: string, mark: string): boolean {
  const file = readTextFile(sentPath(stateDir, digest), 256);
  return file.kind === "text" && file.text === mark;
}

/** Best effort: a mark that could not be written lets a later event of the same state start a notifier again. */
export function markHandled(stateDir: string, digest: string, mark: string): void {
  writeFileAtomic(sentPath(stateDir, digest), mark, { maxBytes: 256 });
}
