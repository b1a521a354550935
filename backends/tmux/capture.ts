// The picker's preview: what the selected session's pane shows now (`tmux capture-pane -p`), for tmux targets.
import type { Runner } from "../../src/core/exec.ts";
import type { Terminal } from "../../src/core/schema.ts";
import { parseTmuxEnv, tmux } from "./runner.ts";

export async function capturePane(terminal: Terminal, lines: number, run?: Runner): Promise<{ lines: string[] } | { note: string }> {
  const server = parseTmuxEnv(terminal.env.TMUX);
  const pane = terminal.env.TMUX_PANE;
  if (!server || !pane || !/^%\d+$/.test(pane)) return { note: "no tmux pane to preview" };
  const captured = await tmux(["capture-pane", "-p", "-J", "-t", pane], {
    socket: server.socket,
    timeoutMs: 1000,
    ...(run ? { run } : {}),
  });
  if (!captured.ok) return { note: `tmux: ${(captured.stderr || captured.detail || `exit ${captured.code}`).split("\n")[0]}` };
  return { lines: captured.stdout.replace(/\n+$/, "").split("\n").slice(-lines) };
}
