// A popup on one tmux client (`display-popup`, tmux 3.2+), running a shell command for as long as the user keeps it:
// how the picker key opens the picker.
import type { RunResult } from "../../src/core/exec.ts";
import { tmuxSync } from "./runner.ts";

/** Open `command` in a popup on `client`; returns when the popup closes. `env` names the server (its TMUX). */
export function openPopup({
  client,
  width,
  height,
  command,
  env,
}: {
  client: string;
  width: string;
  height: string;
  command: string;
  env: NodeJS.ProcessEnv;
}): RunResult {
  // `; true`: the popup command always succeeds, so tmux shows no exit status over the pane when the command ends.
  // No timeout: the popup lasts as long as the user keeps it open.
  return tmuxSync(["display-popup", "-c", client, "-w", width, "-h", height, "-E", `${command}; true`], { env, timeoutMs: Infinity });
}
