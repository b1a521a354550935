// The terminal of a running process that has no record (a discovered process: no hook has captured its terminal), read
// at focus time from the process's own environment, or, when that names no terminal (cleared, unreadable), from its
// nearest ancestor's that does: the shell in the same pane, normally. Only the allowlisted terminal variables
// (core/terminal.ts) are taken, exactly as a hook would have captured them.
import { captureTerminal, TERMINAL_ENV_KEYS } from "../core/terminal.ts";
import type { ProcessSource } from "../core/proc.ts";
import type { Terminal } from "../core/schema.ts";

export type ProcessTerminal =
  { readonly ok: true; readonly terminal: Terminal; readonly evidence: string } | { readonly ok: false; readonly reason: string };

/** Ancestors looked at before giving up: a pane's shell is one or two levels up. */
const MAX_DEPTH = 8;

export async function terminalOfProcess(
  pid: number,
  {
    processes,
    environOf,
    startToken,
  }: {
    processes: ProcessSource;
    environOf: (pid: number) => Promise<Record<string, string> | undefined>;
    /** The start token seen when the process was discovered: a PID now used by another process is refused. */
    startToken?: string | undefined;
  },
): Promise<ProcessTerminal> {
  const self = await processes.basics(pid);
  if (!self) return { ok: false, reason: `process ${pid} is gone` };
  if (startToken !== undefined && self.startToken !== startToken) return { ok: false, reason: `process ${pid} is now another process` };
  for (let current = self, depth = 0; depth < MAX_DEPTH; depth++) {
    const env = await environOf(current.pid);
    if (env && TERMINAL_ENV_KEYS.some((key) => env[key] !== undefined && env[key] !== "")) {
      const terminal = captureTerminal(env, { tty: self.tty });
      const whose = current.pid === pid ? `process ${pid}` : `process ${current.pid} (an ancestor of ${pid})`;
      return { ok: true, terminal, evidence: `the environment of ${whose}` };
    }
    const parent = current.ppid > 1 ? await processes.basics(current.ppid) : undefined;
    if (!parent) break;
    current = parent;
  }
  return { ok: false, reason: `neither process ${pid} nor its ancestors name a terminal in their environment` };
}
