// A record's short memory of what made its state (docs/contract.md, "History"): the last few events that changed it,
// when, from which source, and what each changed, so `tongs-agents explain` can show a doubting user why a session
// says what it says. Bounded in entries and in each entry's text, so a record stays within its 64 KiB.
import { LIMITS, truncateBytes } from "../core/bounds.ts";
import type { EventSource, HistoryEntry, LifecycleEvent, SessionRecord } from "../core/schema.ts";

/** Native aliases come from a harness's hook; the normalized payload from an emitter (Pi's bridge). */
export function sourceOf(event: LifecycleEvent): EventSource {
  if (event.stated) return event.stated.source;
  return event.alias === "fleet-event" ? "bridge" : "hook";
}

/** What changed between two versions of a record, in words, with a note (e.g. what happened to the waits). */
export function describeChange(before: SessionRecord | undefined, after: SessionRecord, note = ""): string {
  const parts: string[] = [];
  if (!before) parts.push(`created ${after.status}`);
  else parts.push(before.status === after.status ? `still ${after.status}` : `${before.status} -> ${after.status}`);
  if (after.detail !== (before?.detail ?? "")) parts.push(`detail ${JSON.stringify(truncateBytes(after.detail, 80))}`);
  if (after.tool !== (before?.tool ?? "") && after.tool !== "") parts.push(`tool ${JSON.stringify(truncateBytes(after.tool, 40))}`);
  if (note) parts.push(note);
  return truncateBytes(parts.join("; "), LIMITS.historyTextBytes);
}

export function entryFor(
  eventId: string,
  source: EventSource,
  before: SessionRecord | undefined,
  after: SessionRecord,
  nowIso: string,
  note = "",
): HistoryEntry {
  return { at: nowIso, source, event: eventId, status: after.status, change: describeChange(before, after, note) };
}

/** The history with one more entry, the oldest ones dropped past the bound. */
export function appended(history: readonly HistoryEntry[] | undefined, entry: HistoryEntry): HistoryEntry[] {
  return [...(history ?? []), entry].slice(-LIMITS.historyEntries);
}
