// The picker's preview: what the selected session's pane shows now (`tmux capture-pane -p`), for tmux targets.
import type { Runner } from "../core/exec.ts";
import type { SessionView } from "../fleet/view.ts";
import { parseTmuxEnv, tmux } from "./runner.ts";

export async function capturePane(session: SessionView, lines: number, run?: Runner): Promise<{ lines: string[] } | { note: string }> {
  const server = parseTmuxEnv(session.terminal.env.TMUX);
  const pane = session.terminal.env.TMUX_PANE;
  if (!server || !pane || !/^%\d+$/.test(pane)) return { note: "no tmux pane to preview" };
  if (session.stale || session.status === "ended") return { note: "the session has ended" };
  const captured = await tmux(["capture-pane", "-p", "-J", "-t", pane], {
    socket: server.socket,
    timeoutMs: 1000,
    ...(run ? { run } : {}),
  });
  if (!captured.ok) return { note: `tmux: ${(captured.stderr || captured.detail || `exit ${captured.code}`).split("\n")[0]}` };
  return { lines: captured.stdout.replace(/\n+$/, "").split("\n").slice(-lines) };
}
