// Stopping every process below one process (the demo's tmux server: its panes' agents, the hooks they run, popups and
// key-binding jobs) before their files are removed. Killing the server alone leaves them to die of SIGHUP some time
// later, and a hook still running then recreated the state dir that had just been removed. Each round freezes the
// processes found (SIGSTOP: a frozen process starts no other) and looks again, until no new one appears; then all are
// killed. `ps -A -o pid=,ppid=` works on Linux and macOS.
import { spawnSync } from "node:child_process";

function children(): Map<number, number[]> {
  const listed = spawnSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" });
  const tree = new Map<number, number[]>();
  for (const line of (listed.stdout ?? "").split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid !== undefined && !Number.isNaN(ppid)) tree.set(ppid, [...(tree.get(ppid) ?? []), pid]);
  }
  return tree;
}

function below(root: number): number[] {
  const tree = children();
  const found: number[] = [];
  for (let queue = [...(tree.get(root) ?? [])]; queue.length > 0;) {
    const pid = queue.shift() as number;
    found.push(pid);
    queue = [...queue, ...(tree.get(pid) ?? [])];
  }
  return found;
}

const signal = (pid: number, name: NodeJS.Signals | 0) => {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
};

/** Kill every process below `root` (not `root` itself), and wait (at most `timeoutMs`) until none of them runs. */
export function killProcessTree(root: number, timeoutMs = 3000): void {
  const frozen = new Set<number>();
  for (let round = 0; round < 20; round++) {
    const fresh = below(root).filter((pid) => !frozen.has(pid) && pid !== process.pid);
    if (fresh.length === 0) break;
    for (const pid of fresh) if (signal(pid, "SIGSTOP")) frozen.add(pid);
  }
  for (const pid of frozen) signal(pid, "SIGKILL");
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (Date.now() < deadline && [...frozen].some((pid) => running(pid))) Atomics.wait(pause, 0, 0, 20);
}

/** Still running: exists and is not a zombie (a killed process waiting for its parent to reap it runs no code). */
function running(pid: number): boolean {
  if (!signal(pid, 0)) return false;
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout?.trim() ?? "";
  return state !== "" && !state.startsWith("Z");
}
