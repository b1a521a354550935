// A message on one tmux client's status line (`display-message -c <client>`): where the notifier tells the user at
// that terminal which agent needs them (docs/notifications.md, "tmux").
import type { Runner } from "../../src/core/exec.ts";
import { tmux } from "./runner.ts";

/** Show `text` on the client whose tty is `client`; the text is already cleaned for tmux (no formats run). */
export async function displayMessage(
  socket: string,
  client: string,
  text: string,
  run: Runner,
): Promise<{ readonly ok: true } | { readonly ok: false; readonly detail: string }> {
  // `--`: the message never reads as an option, whatever it starts with.
  const result = await tmux(["display-message", "-c", client, "--", text], { socket, run });
  return result.ok ? { ok: true } : { ok: false, detail: result.stderr.trim() || result.failure || `exit ${result.code}` };
}
