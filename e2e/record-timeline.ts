// Reading a harness's records in a container the way the newer agent suites do (Copilot's first, then Gemini CLI, Qwen
// Code and OpenCode): wait (bounded) for a state in the watcher's history (pi-box.ts startWatcher), collapse the
// history into the states it went through, and check them against an expected timeline where a state only milliseconds
// long may be missed by the watcher's reads.
import type { Box } from "./containers.ts";
import { readHistory, type HistoryEntry } from "./pi-box.ts";
import { waitUntil } from "./tmux-focus-lab.ts";

export interface Expected {
  readonly status: string;
  readonly detail: string;
  readonly tool?: string;
  /** A state that may come and go between two watcher reads (milliseconds), so its absence is no failure. */
  readonly fleeting?: boolean;
}

export const summary = (entries: readonly HistoryEntry[]): string =>
  entries.map(({ status, detail, tool, pid }) => `${status} | ${detail} | ${tool} | ${pid}`).join("\n");

export async function historyOf(box: Box, harness: string): Promise<HistoryEntry[]> {
  return (await readHistory(box)).filter((entry) => entry.harness === harness);
}

/** The first history entry of `harness` that passes `test`, waited for (90 s); on a timeout, the history and `screen`. */
export async function waitForState(
  box: Box,
  harness: string,
  what: string,
  test: (entry: HistoryEntry) => boolean,
  screen: () => Promise<string>,
  timeoutMs = 90_000,
): Promise<HistoryEntry> {
  let found: HistoryEntry | undefined;
  await waitUntil(
    async () => {
      found = (await historyOf(box, harness)).find(test);
      return found !== undefined;
    },
    what,
    { timeoutMs, explain: async () => `history:\n${summary(await historyOf(box, harness))}\nscreen:\n${await screen()}` },
  );
  return found as HistoryEntry;
}

/** The history without repeats: one entry per change of status, detail or tool. */
export function states(entries: readonly HistoryEntry[]): HistoryEntry[] {
  return entries.filter((entry, index) => {
    const previous = entries[index - 1];
    return !previous || previous.status !== entry.status || previous.detail !== entry.detail || previous.tool !== entry.tool;
  });
}

export function expectTimeline(entries: readonly HistoryEntry[], expected: readonly Expected[]): void {
  const matches = (entry: HistoryEntry | undefined, want: Expected) =>
    entry !== undefined && entry.status === want.status && entry.detail === want.detail && entry.tool === (want.tool ?? "");
  let index = 0;
  for (const want of expected) {
    if (matches(entries[index], want)) index++;
    else if (!want.fleeting)
      throw new Error(`state ${index + 1}: expected ${want.status} | ${want.detail}; the states were:\n${summary(entries)}`);
  }
  if (index !== entries.length) throw new Error(`unexpected states after ${index}:\n${summary(entries)}`);
}

/** `tongs-agents show <id> --json` in the container: the record as every reader sees it (liveness checked). */
export async function showRecord(box: Box, sessionId: string): Promise<Record<string, unknown>> {
  const shown = await box.exec(["tongs-agents", "show", sessionId, "--json"]);
  if (shown.code !== 0) throw new Error(`tongs-agents show ${sessionId} exited ${shown.code}: ${shown.stdout}${shown.stderr}`);
  return JSON.parse(shown.stdout) as Record<string, unknown>;
}

export async function listSessions(box: Box, all = false): Promise<Record<string, unknown>[]> {
  const listed = await box.exec(["tongs-agents", "list", ...(all ? ["--all"] : []), "--json"]);
  if (listed.code !== 0) throw new Error(`tongs-agents list exited ${listed.code}: ${listed.stderr}`);
  return (JSON.parse(listed.stdout) as { sessions: Record<string, unknown>[] }).sessions;
}
