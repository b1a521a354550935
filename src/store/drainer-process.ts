// Which process drains the hook shim's queue (`<state>/incoming/`, hook/drainer.ts), and starting one when events are
// queued and none runs. The drainer names itself in `<state>/drainer.pid` as "<pid> <start time>", the way the shim
// checks it (bin/tongs-agents-hook.sh): a PID is taken for the drainer only while it has that start time. Readers call
// ensureDrainer, so events queued while no drainer ran (one was killed, a hook could not start one) are applied as soon
// as anyone looks; they never wait on the queue themselves.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const DRAINER_PID_FILE = "drainer.pid";
export const SHIM_QUEUE_DIR = "incoming";

/** The start time (clock ticks) of a live process, or undefined when it is gone or a zombie. */
export function liveStartTime(pid: string | number): string | undefined {
  const stat = procStat(pid);
  return stat === undefined || stat.state === "Z" || stat.state === "X" ? undefined : stat.start;
}

function procStat(pid: string | number): { state: string; start: string | undefined } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "", start: fields[19] };
  } catch {
    return undefined;
  }
}

/**
 * What drainer.pid says: "<pid> <start>" of a process that is alive and running, or undefined. A stopped one (SIGSTOP,
 * a debugger) counts as none, so that another is started: the queue would otherwise wait for as long as it is stopped.
 * When it runs again, it finds another named and leaves (two at once are safe: store/transaction.ts).
 */
export function namedDrainer(stateDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(stateDir, DRAINER_PID_FILE), "latin1").trim();
  } catch {
    return undefined;
  }
  const [pid = "", start = ""] = text.split(" ");
  if (!/^\d+$/.test(pid) || start === "") return undefined;
  const stat = procStat(pid);
  return stat !== undefined && stat.start === start && !["Z", "X", "T", "t"].includes(stat.state) ? `${pid} ${start}` : undefined;
}

/** Are hook events queued for the drainer? */
export function drainerQueued(stateDir: string): boolean {
  try {
    return readdirSync(join(stateDir, SHIM_QUEUE_DIR)).some((name) => name.endsWith(".ev"));
  } catch {
    return false;
  }
}

/** bin/tongs-agents-drainer.cjs, found from this file wherever it was bundled to (src/store/, dist/, dist/cli/verbs/). */
function drainerScript(): string | undefined {
  let dir = typeof __dirname === "string" ? __dirname : import.meta.dirname;
  for (let up = 0; up < 5; up++) {
    const candidate = join(dir, "bin", "tongs-agents-drainer.cjs");
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

/**
 * Start a drainer when events are queued and none runs. Detached, in its own session, with only PATH and HOME of the
 * caller's environment (each event carries its own). Best effort. True when a drainer runs (or was just started).
 */
export function ensureDrainer(stateDir: string, { env = process.env }: { env?: NodeJS.ProcessEnv } = {}): boolean {
  if (process.platform !== "linux") return false;
  if (namedDrainer(stateDir) !== undefined) return true;
  if (!drainerQueued(stateDir)) return false;
  const script = drainerScript();
  if (script === undefined) return false;
  try {
    const minimal: NodeJS.ProcessEnv = {};
    if (env.PATH !== undefined) minimal.PATH = env.PATH;
    if (env.HOME !== undefined) minimal.HOME = env.HOME;
    // Loaded here: a reader pays for child_process only when it has a drainer to start.
    const { spawn } = process.getBuiltinModule("node:child_process");
    const child = spawn(process.execPath, [script, stateDir], { detached: true, stdio: "ignore", env: minimal, cwd: "/" });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * Stop the drainer drainer.pid names (`uninstall --purge`): SIGTERM to that PID only while it still has the start time
 * the file gives (never another process that took the PID since), then SIGKILL if it has not gone within the bound.
 * Safe at any instruction: the queue on disk is the truth. Its PID when one was stopped.
 */
export async function stopDrainer(stateDir: string, { boundMs = 2000 }: { boundMs?: number } = {}): Promise<number | undefined> {
  const named = namedDrainer(stateDir) ?? stoppedDrainer(stateDir);
  if (named === undefined) return undefined;
  const [pidText = "", start] = named.split(" ");
  const pid = Number(pidText);
  const same = () => procStat(pid)?.start === start && !["Z", "X"].includes(procStat(pid)?.state ?? "X");
  const signal = (name: NodeJS.Signals) => {
    try {
      if (same()) process.kill(pid, name);
    } catch {
      // gone meanwhile
    }
  };
  signal("SIGTERM");
  signal("SIGCONT"); // a stopped one cannot act on SIGTERM until it runs
  const deadline = Date.now() + boundMs;
  while (same() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  signal("SIGKILL");
  return pid;
}

/** A drainer drainer.pid names that is alive but stopped (SIGSTOP): namedDrainer counts it as none, a purge still ends it. */
function stoppedDrainer(stateDir: string): string | undefined {
  try {
    const [pid = "", start = ""] = readFileSync(join(stateDir, DRAINER_PID_FILE), "latin1").trim().split(" ");
    const stat = /^\d+$/.test(pid) ? procStat(pid) : undefined;
    return stat !== undefined && start !== "" && stat.start === start && (stat.state === "T" || stat.state === "t")
      ? `${pid} ${start}`
      : undefined;
  } catch {
    return undefined;
  }
}
