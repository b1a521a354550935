// A private tmux server for the demo: its socket in the demo's own directory, its config written there, one window per
// program, and everything it started gone with it.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { killProcessTree } from "../../src/core/process-tree.ts";
import { shellCommand } from "../../src/core/shell-quote.ts";
import { tmuxSync } from "./runner.ts";

export interface PrivateServer {
  readonly socket: string;
  /** Run a tmux command on this server (tests type keys and read panes with it). */
  tmux(...args: string[]): { status: number | null; stdout: string; stderr: string };
  /** The tty of the first attached client, once one is attached. */
  firstClient(): string | undefined;
  /** What a program inside this server finds in TMUX (`<socket>,<server pid>,<session>`). */
  tmuxEnv(): string;
  /** Attach this terminal to the session, for the user (tmux then draws for the user's own locale: no `-u`). */
  attach(): ChildProcess;
  /** The server, and every process it started, ended. */
  stop(): void;
}

/** A detached session `session` on a new server in `dir`, a window per program (argv), each in its own directory. */
export function startPrivateServer({
  dir,
  env,
  session,
  configLines,
  windows,
}: {
  dir: string;
  env: NodeJS.ProcessEnv;
  session: string;
  configLines: readonly string[];
  windows: readonly { name: string; cwd: string; argv: readonly string[] }[];
}): PrivateServer {
  const socket = join(dir, "tmux.sock");
  const tmux = (...args: string[]) => {
    const result = tmuxSync(args, { socket, env, timeoutMs: 10_000 });
    return { status: result.code ?? null, stdout: result.stdout, stderr: result.stderr };
  };
  const conf = join(dir, "tmux.conf");
  writeFileSync(conf, [...configLines, ""].join("\n"));
  for (const [index, window] of windows.entries()) {
    const command = shellCommand(window.argv);
    if (index === 0)
      tmux("-f", conf, "new-session", "-d", "-s", session, "-n", window.name, "-x", "160", "-y", "45", "-c", window.cwd, command);
    else tmux("new-window", "-d", "-t", `${session}:`, "-n", window.name, "-c", window.cwd, command);
  }
  const serverPid = () => Number(tmux("display-message", "-p", "#{pid}").stdout.trim());
  return {
    socket,
    tmux,
    firstClient: () => tmux("list-clients", "-F", "#{client_tty}").stdout.trim().split("\n")[0] || undefined,
    tmuxEnv: () => `${socket},${serverPid()},0`,
    attach: () => spawn("tmux", ["-S", socket, "attach", "-t", session], { stdio: "inherit", env }),
    stop() {
      // Agents, their hooks, the picker: all gone before the files are (src/core/process-tree.ts says why).
      const pid = serverPid();
      if (pid > 0) killProcessTree(pid);
      tmux("kill-server");
    },
  };
}
