// Another process's environment, read at the moment it is needed (focus reads the terminal variables of a tmux client
// or of the UI that shows a session); the hook never uses it.

/** Linux: a process's environment, NUL-separated in /proc/PID/environ (readable for our own user's processes). */
export async function linuxEnvironOf(pid: number, procRoot = "/proc"): Promise<Record<string, string> | undefined> {
  // node:fs/promises is required on use, not at the top: it loads streams, readline and file watchers, which the
  // keypress verbs that bundle this file (focus, next) otherwise never need.
  const raw = await process
    .getBuiltinModule("node:fs/promises")
    .readFile(`${procRoot}/${pid}/environ`)
    .catch(() => undefined);
  if (!raw) return undefined;
  const env: Record<string, string> = {};
  for (const entry of raw.toString("utf8").split("\0")) {
    const at = entry.indexOf("=");
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}
