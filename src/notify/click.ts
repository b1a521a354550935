// A click on a notification does what `tongs-agents focus <id>` does, and reports it the same way: the focus result is
// logged (notify.log, the same fields `focus --json` prints), and when it is not `complete`, a follow-up notification
// says what happened, in the words `focus` prints. docs/notifications.md, "Clicking".
import { formatFocus } from "../focus/format.ts";
import type { FocusResult } from "../focus/result.ts";
import { focusSession } from "../focus/service.ts";
import { defaultProcessSource } from "../core/proc.ts";
import type { Notice, NotifyChannel, NotifyWorld } from "./contract.ts";
import { cleanLine, cleanLines } from "./sanitize.ts";

/**
 * The environment focus runs with: the user clicked on their desktop, not in the agent's pane, so the agent's own
 * TMUX (inherited by the notifier) must not make focus pin the agent's tmux client; focus picks the client the user
 * was at last and raises its terminal window, as for a focus started outside tmux.
 */
export function clickEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { TMUX: _tmux, TMUX_PANE: _pane, ...rest } = env;
  return rest;
}

export type Focus = (id: string, env: NodeJS.ProcessEnv) => Promise<FocusResult>;

const defaultFocus =
  (stateDir: string): Focus =>
  (id, env) =>
    focusSession(id, { stateDir, processes: defaultProcessSource(), env });

/** What the log keeps of a focus result: the fields `focus --json` prints, each detail bounded. */
export function focusSummary(result: FocusResult): Record<string, unknown> {
  return {
    state: result.state,
    backend: result.backend,
    target: cleanLine(result.target, 200),
    selection: { ...result.selection, detail: cleanLine(result.selection.detail, 300) },
    activation: { ...result.activation, detail: cleanLine(result.activation.detail, 300) },
    detail: cleanLine(result.detail, 300),
  };
}

/** The follow-up notice for a focus that did not complete. */
export function focusReport(result: FocusResult, home?: string): Notice {
  const title = cleanLine(`tongs-agents could not fully focus: ${result.state}`);
  const lines = cleanLines(formatFocus(result, home).split("\n"), 6);
  return { title, lines, oneLine: cleanLine(`${title}: ${lines[0] ?? ""}`), urgency: "normal", sessions: [] };
}

export async function handleClick(
  id: string,
  world: NotifyWorld,
  desktop: NotifyChannel,
  focus: Focus = defaultFocus(world.stateDir),
): Promise<{ result: FocusResult; followUp?: string }> {
  const result = await focus(id, clickEnvironment(world.env));
  if (result.state === "complete") return { result };
  const sent = await desktop.deliver(focusReport(result, world.env.HOME), [], world);
  await sent.pending?.close();
  return { result, followUp: `${sent.outcome}: ${sent.detail}` };
}
