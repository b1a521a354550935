// `show` names a tmux pane the way tmux users know it: session:window.pane. A record keeps the pane id (%N), which
// stays the same while windows are moved or renumbered, so the name is asked of the pane's own tmux server when shown.
import { run as runProgram, type Runner } from "../../src/core/exec.ts";

/** session:window.pane of the recorded pane, or undefined when its server cannot say (gone, not reachable). */
export async function tmuxPlaceOf(env: Readonly<Record<string, string>>, run: Runner = runProgram): Promise<string | undefined> {
  const socket = env.TMUX?.split(",")[0];
  const pane = env.TMUX_PANE;
  if (!socket || !pane || !/^%\d+$/.test(pane)) return undefined;
  const result = await run("tmux", ["-S", socket, "display-message", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"], {
    timeoutMs: 2000,
  });
  const place = result.stdout.trim();
  return result.ok && place !== "" && !place.includes("\n") ? place : undefined;
}
