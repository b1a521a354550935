// What a pane shows now (`tmux capture-pane -p`, wrapped lines joined): the picker's preview.
import type { Runner } from "../../src/core/exec.ts";
import type { Capture } from "../contract.ts";
import { tmux, type TmuxTarget } from "./runner.ts";

export async function capturePane({ socket, pane }: TmuxTarget, lines: number, run?: Runner): Promise<Capture> {
  const captured = await tmux(["capture-pane", "-p", "-J", "-t", pane], { socket, timeoutMs: 1000, ...(run ? { run } : {}) });
  if (!captured.ok) return { note: `tmux: ${(captured.stderr || captured.detail || `exit ${captured.code}`).split("\n")[0]}` };
  return { lines: captured.stdout.replace(/\n+$/, "").split("\n").slice(-lines) };
}
