// The real world of a notifier or of `tongs-agents notify`: this process's environment and platform, programs run
// with a bound (exec.ts), tty writes (tty.ts), and other processes' environments (Linux /proc).
import { run } from "../core/exec.ts";
import type { NotifyWorld } from "./contract.ts";
import { writeTty } from "./tty.ts";

export function realWorld(
  stateDir: string,
  { env = process.env, clickCommand }: { env?: NodeJS.ProcessEnv; clickCommand?: NotifyWorld["clickCommand"] } = {},
): NotifyWorld {
  return {
    env,
    platform: process.platform,
    run,
    stateDir,
    writeTty,
    // Loaded when a channel asks (the terminal channel, for a tmux client's terminal): focus.ts brings every backend.
    environOf: async (pid) => (await import("../core/environ.ts")).linuxEnvironOf(pid),
    clickCommand,
  };
}

/**
 * What a click on a macOS notification runs (terminal-notifier's -execute, through /bin/sh): the notifier bundle in
 * `click` mode. Notification Center starts it with launchd's minimal PATH, so the agent's PATH (where tmux, kitty or
 * wezterm live) is passed along.
 */
export function clickCommandFor(bundle: string, stateDir: string, env: NodeJS.ProcessEnv): NonNullable<NotifyWorld["clickCommand"]> {
  return (sessionId) => ["/usr/bin/env", `PATH=${env.PATH ?? "/usr/bin:/bin"}`, process.execPath, bundle, "click", stateDir, sessionId];
}
