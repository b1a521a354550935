// The real world of a notifier or of `tongs-agents notify`: this process's environment and platform, programs run
// with a bound (exec.ts), tty writes (tty.ts), and other processes' environments (Linux /proc).
import { run } from "../exec.ts";
import type { NotifyWorld } from "./contract.ts";
import { writeTty } from "./tty.ts";

export function realWorld(stateDir: string, { env = process.env, clickCommand }: { env?: NodeJS.ProcessEnv; clickCommand?: NotifyWorld["clickCommand"] } = {}): NotifyWorld {
  return {
    env,
    platform: process.platform,
    run,
    stateDir,
    writeTty,
    // Loaded when a channel asks (the terminal channel, for a tmux client's terminal): focus.ts brings every backend.
    environOf: async (pid) => (await import("../focus.ts")).linuxEnvironOf(pid),
    clickCommand,
  };
}
