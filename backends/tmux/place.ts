// `show` names a tmux pane the way tmux users know it: session:window.pane. A record keeps the pane id (%N), which
// stays the same while windows are moved or renumbered, so the name is asked of the pane's own tmux server when shown.
import type { Runner } from "../../src/core/exec.ts";
import { tmux, tmuxTargetOf } from "./runner.ts";

/** session:window.pane of the recorded pane, or undefined when its server cannot say (gone, not reachable). */
export async function tmuxPlaceOf(env: Readonly<Record<string, string>>, run?: Runner): Promise<string | undefined> {
  const target = tmuxTargetOf(env);
  if (!target) return undefined;
  const result = await tmux(["display-message", "-p", "-t", target.pane, "#{session_name}:#{window_index}.#{pane_index}"], {
    socket: target.socket,
    timeoutMs: 2000,
    ...(run ? { run } : {}),
  });
  const place = result.stdout.trim();
  return result.ok && place !== "" && !place.includes("\n") ? place : undefined;
}
