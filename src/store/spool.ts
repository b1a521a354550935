// Each record has a spool: a hook first queues its validated event there, then applies every queued event under the
// record lock. A hook that cannot get the lock within its bound leaves its event queued, and the next lock holder
// applies it: under heavy contention events are deferred, never dropped, and one lock holder applies a burst at once.
import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkPrivateDir, ensurePrivateDir } from "./paths.ts";
import { LifecycleEventSchema, type LifecycleEvent } from "../core/schema.ts";
import { readJsonFile, uniqueSuffix, writeJsonAtomic } from "./records.ts";

export function spoolDirOf(sessionsDir: string, digest: string): string {
  return join(sessionsDir, `${digest}.spool`);
}

const ENTRY = /^\d{20}-\d+-[0-9a-f]{8}\.json$/;

/** Queue an event. Entry names sort in arrival order (system-wide monotonic clock, then PID). */
export function enqueue(sessionsDir: string, digest: string, event: LifecycleEvent): { ok: true; path: string } | { ok: false; detail: string } {
  const dir = spoolDirOf(sessionsDir, digest);
  const checked = ensurePrivateDir(dir);
  if (!checked.ok) return { ok: false, detail: checked.detail };
  const path = join(dir, `${process.hrtime.bigint().toString().padStart(20, "0")}-${process.pid}-${uniqueSuffix()}.json`);
  const written = writeJsonAtomic(path, { schema_version: 1, event });
  return written.ok ? { ok: true, path } : { ok: false, detail: written.detail };
}

export function isQueued(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

export interface QueuedEvent {
  readonly path: string;
  /** Undefined when the entry is unreadable or malformed: it is removed without being applied. */
  readonly event: LifecycleEvent | undefined;
}

/**
 * Queued events in arrival order. A spool that is not a private directory of ours (a symlink planted in its place, say)
 * is never read, so nothing in its target is applied or removed.
 */
export function queuedEvents(sessionsDir: string, digest: string): QueuedEvent[] {
  const dir = spoolDirOf(sessionsDir, digest);
  if (!checkPrivateDir(dir).ok) return [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => ENTRY.test(name)).sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    const path = join(dir, name);
    const file = readJsonFile(path);
    if (file.kind !== "json" || typeof file.value !== "object" || file.value === null) return { path, event: undefined };
    const parsed = LifecycleEventSchema.safeParse((file.value as { event?: unknown }).event);
    return { path, event: parsed.success ? parsed.data : undefined };
  });
}

/** Remove applied entries; the spool dir is checked again first, in case it was replaced by a symlink since it was read. */
export function removeQueued(entries: readonly QueuedEvent[]): void {
  for (const { path } of entries) {
    if (!checkPrivateDir(dirname(path)).ok) continue;
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}
