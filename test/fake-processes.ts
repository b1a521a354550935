import type { ProcessInfo, ProcessSource } from "../src/core/proc.ts";

/** A process table for tests: basics and argv from the given rows; unknown PIDs do not exist. */
export function fakeProcessSource(rows: Iterable<ProcessInfo>): ProcessSource {
  const byPid = new Map([...rows].map((row) => [row.pid, row]));
  return {
    basics: async (pid) => {
      const row = byPid.get(pid);
      if (!row) return undefined;
      const { argv: _argv, ...basics } = row;
      return basics;
    },
    argv: async (pid) => byPid.get(pid)?.argv,
  };
}

export function fakeProcess(
  pid: number,
  ppid: number,
  comm: string,
  argv: string[] = [comm],
  extra: Partial<ProcessInfo> = {},
): ProcessInfo {
  return { pid, ppid, comm, exe: undefined, argv, startToken: `linux:boot:${pid}00`, tty: "/dev/pts/4", ...extra };
}
