// The one tmux runner: every tmux command line tongs-agents runs is built here. `-u` makes tmux write UTF-8 whatever
// the caller's locale: without it, a caller with no UTF-8 locale (MCP clients often spawn servers in a bare
// environment) gets `_` for every tab separator tongs-agents parses, and for every non-ASCII name.
import { run, runSync, type RunOptions, type RunResult, type Runner } from "../../src/core/exec.ts";

export interface TmuxOptions extends RunOptions {
  /** The server's socket (`-S`); none: the default server of the environment's TMUX or TMUX_TMPDIR. */
  readonly socket?: string;
  readonly run?: Runner;
}

/** The argument list for tmux: locale-proof output, the server's socket, then the command(s). */
export function tmuxArgv(args: readonly string[], socket?: string): string[] {
  return ["-u", ...(socket === undefined ? [] : ["-S", socket]), ...args];
}

export function tmux(args: readonly string[], { socket, run: runner = run, ...options }: TmuxOptions = {}): Promise<RunResult> {
  return runner("tmux", tmuxArgv(args, socket), options);
}

export function tmuxSync(args: readonly string[], { socket, ...options }: Omit<TmuxOptions, "run"> = {}): RunResult {
  return runSync("tmux", tmuxArgv(args, socket), options);
}

/** `TMUX` is `<socket path>,<server pid>,<session id number>`; the socket is the text before the first comma. */
export function parseTmuxEnv(tmux: string | undefined): { socket: string; sessionId: string } | undefined {
  if (!tmux) return undefined;
  const parts = tmux.split(",");
  const socket = parts[0];
  if (!socket || !socket.startsWith("/")) return undefined;
  const session = parts[2];
  return { socket, sessionId: session !== undefined && /^\d+$/.test(session) ? `$${session}` : "" };
}

/** A pane, by its server's socket and its id (`%N`: it stays while windows are moved or renumbered). */
export interface TmuxTarget {
  readonly socket: string;
  readonly pane: string;
}

const PANE = /^%\d+$/;

/** The pane a captured environment names (TMUX and TMUX_PANE); undefined when it names none. */
export function tmuxTargetOf(env: Readonly<Record<string, string | undefined>>): TmuxTarget | undefined {
  const server = parseTmuxEnv(env.TMUX);
  const pane = env.TMUX_PANE;
  return server && pane && PANE.test(pane) ? { socket: server.socket, pane } : undefined;
}

/**
 * One tmux call can run several commands (`a ; b`), each printing its own rows: each row starts with a tag that says
 * which command printed it. The rows of `stdout` that carry `tag`, without it.
 */
export function taggedRows(stdout: string, tag: string): string[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(tag))
    .map((line) => line.slice(tag.length));
}
