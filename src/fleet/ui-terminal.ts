// The generic hook point for sessions whose recorded terminal is unprovable (a harness process that hosts several UIs,
// Codex's shared daemon): the session's harness adapter may locate the UI that shows it from exact evidence at the
// moment of asking. Focus calls this; it knows no harness by name.
import psList from "ps-list";
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

/** The UI that shows `session` and its terminal, or why it cannot be told; `undefined` when the harness cannot look. */
export async function locateSessionUi(
  session: SessionView,
  { processes, listProcesses = () => psList({ all: false }), environOf = linuxEnvironOf }: UiWorldContext,
): Promise<UiLocation | undefined> {
  const locate = findHarness(session.harness)?.locateUi;
  if (!locate) return undefined;
  return locate({ session_id: session.session_id, pid: session.pid }, { list: listProcesses, processes, environOf });
}
