// The picker's preview: what the selected session's pane shows now (`tmux capture-pane -p`), for tmux targets.
import { execFile } from "node:child_process";
import { parseTmuxEnv } from "../../backends/tmux.ts";
import type { SessionView } from "../fleet/view.ts";

export async function capturePane(session: SessionView, lines: number): Promise<{ lines: string[] } | { note: string }> {
  const tmux = parseTmuxEnv(session.terminal.env.TMUX);
  const pane = session.terminal.env.TMUX_PANE;
  if (!tmux || !pane || !/^%\d+$/.test(pane)) return { note: "no tmux pane to preview" };
  if (session.stale || session.status === "ended") return { note: "the session has ended" };
  return new Promise((resolve) => {
    execFile("tmux", ["-S", tmux.socket, "capture-pane", "-p", "-J", "-t", pane], { timeout: 1000, maxBuffer: 1024 * 1024, encoding: "utf8" }, (error, stdout) => {
      if (error) resolve({ note: `tmux: ${String(error.message).split("\n")[0]}` });
      else resolve({ lines: stdout.replace(/\n+$/, "").split("\n").slice(-lines) });
    });
  });
}
