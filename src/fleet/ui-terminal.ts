// The generic hook point for sessions whose recorded terminal is unprovable (a harness process that hosts several UIs,
// Codex's shared daemon): the session's harness adapter may locate the UI that shows it from exact evidence at the
// moment of asking. Focus calls this; it knows no harness by name.
import { linuxEnvironOf } from "../core/environ.ts";
import type { ProcessSource } from "../core/proc.ts";
import type { UiLocation, UiWorld } from "../harnesses/contract.ts";
import { findHarness } from "../harnesses/registry.ts";
import { processTable, type ListProcesses } from "../core/process-table.ts";
import type { SessionView } from "./view.ts";

export interface UiWorldContext {
  readonly processes: ProcessSource;
  readonly listProcesses?: ListProcesses;
  readonly environOf?: UiWorld["environOf"];
}

/** The process table, read when a harness adapter lists processes (/proc; `ps` only where there is none). */
const listOwnProcesses: ListProcesses = processTable();

/** The UI that shows `session` and its terminal, or why it cannot be told; `undefined` when the harness cannot look. */
export async function locateSessionUi(
  session: SessionView,
  { processes, listProcesses = listOwnProcesses, environOf = linuxEnvironOf }: UiWorldContext,
): Promise<UiLocation | undefined> {
  const locate = findHarness(session.harness)?.locateUi;
  if (!locate) return undefined;
  return locate({ session_id: session.session_id, pid: session.pid }, { list: listProcesses, processes, environOf });
}
