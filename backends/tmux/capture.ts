// What a pane shows now (`tmux capture-pane -p`, wrapped lines joined): the picker's preview, and the screen an answer
// reads before it presses a key; and pressing those keys (`tmux send-keys`), each a tmux key name, never literal text.
import type { Runner } from "../../src/core/exec.ts";
import type { Capture, KeysResult } from "../contract.ts";
import { tmux, type TmuxTarget } from "./runner.ts";

export async function capturePane({ socket, pane }: TmuxTarget, lines: number, run?: Runner): Promise<Capture> {
  const captured = await tmux(["capture-pane", "-p", "-J", "-t", pane], { socket, timeoutMs: 1000, ...(run ? { run } : {}) });
  if (!captured.ok) return { note: `tmux: ${(captured.stderr || captured.detail || `exit ${captured.code}`).split("\n")[0]}` };
  return { lines: captured.stdout.replace(/\n+$/, "").split("\n").slice(-lines) };
}

export async function sendKeysToPane({ socket, pane }: TmuxTarget, keys: readonly string[], run?: Runner): Promise<KeysResult> {
  const sent = await tmux(["send-keys", "-t", pane, ...keys], { socket, timeoutMs: 1000, ...(run ? { run } : {}) });
  return sent.ok ? { ok: true } : { ok: false, detail: `tmux: ${(sent.stderr || sent.detail || `exit ${sent.code}`).split("\n")[0]}` };
}
