// Which processes are the attached clients (displays) of a GNU screen session. screen has no query for it
// (`-Q displays` is refused), so on Linux read it from /proc: the session's server process keeps the tty of each
// attached display open (its window ptys are /dev/ptmx masters), and the client is the process named `screen` whose
// controlling terminal is that tty (docs/focus.md, "GNU screen").
import { parseProcStat, ttyNameFromNr } from "../../src/core/proc.ts";

export interface ScreenClient {
  readonly pid: number;
  readonly tty: string;
}

const DISPLAY_TTY = /^\/dev\/(pts\/\d+|tty[A-Za-z0-9]+)$/;

/** The display ttys a screen server holds open, then the `screen` client processes on them (lowest PID first). */
export async function linuxScreenClients(serverPid: number, procRoot = "/proc"): Promise<ScreenClient[]> {
  const fdDir = `${procRoot}/${serverPid}/fd`;
  // Required on use: node:fs/promises loads streams and watchers, and every focus bundles this backend.
  const { readdir, readFile, readlink } = process.getBuiltinModule("node:fs/promises");
  const fds = await readdir(fdDir).catch(() => [] as string[]);
  const links = await Promise.all(fds.map((fd) => readlink(`${fdDir}/${fd}`).catch(() => "")));
  const ttys = new Set(links.filter((link) => DISPLAY_TTY.test(link)));
  if (ttys.size === 0) return [];

  const pids = (await readdir(procRoot).catch(() => [] as string[])).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const clients: ScreenClient[] = [];
  for (const pid of pids) {
    if (pid === serverPid) continue;
    const stat = await readFile(`${procRoot}/${pid}/stat`, "utf8").catch(() => undefined);
    const parsed = stat === undefined ? undefined : parseProcStat(stat);
    if (!parsed || !/^screen/i.test(parsed.comm)) continue;
    const tty = ttyNameFromNr(parsed.ttyNr);
    if (tty !== undefined && ttys.has(tty)) clients.push({ pid, tty });
  }
  return clients.sort((a, b) => a.pid - b.pid);
}
