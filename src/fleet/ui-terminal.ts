// The generic hook point for sessions whose recorded terminal is unprovable (a harness process that hosts several UIs,
// Codex's shared daemon): the session's harness adapter may locate the UI that shows it from exact evidence at the
// moment of asking. Focus calls this; it knows no harness by name.
import { linuxEnvironOf } from "../core/environ.ts";
import type { ProcessSource } from "../core/proc.ts";
import type { UiLocation, UiWorld } from "../harnesses/contract.ts";
import { findHarness } from "../harnesses/registry.ts";
import type { ListProcesses } from "./discovery.ts";
import type { SessionView } from "./view.ts";

export interface UiWorldContext {
  readonly processes: ProcessSource;
  readonly listProcesses?: ListProcesses;
  readonly environOf?: UiWorld["environOf"];
}

/**
 * ps-list, loaded when a harness adapter lists processes: focus and `next` carry this file, and loading ps-list (which
 * loads node:child_process, node:util and node:url) at start-up cost every keypress (docs/benchmarks.md).
 */
const listOwnProcesses: ListProcesses = async () => (await import("ps-list")).default({ all: false });

/** The UI that shows `session` and its terminal, or why it cannot be told; `undefined` when the harness cannot look. */
export async function locateSessionUi(
  session: SessionView,
  { processes, listProcesses = listOwnProcesses, environOf = linuxEnvironOf }: UiWorldContext,
): Promise<UiLocation | undefined> {
  const locate = findHarness(session.harness)?.locateUi;
  if (!locate) return undefined;
  return locate({ session_id: session.session_id, pid: session.pid }, { list: listProcesses, processes, environOf });
}
