// A bounded debug log for the hook, written only when the user asks (TONGS_AGENTS_DEBUG=1). The hook never prints.
import { closeSync, constants, fstatSync, lstatSync, openSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { truncateBytes } from "../core/bounds.ts";
import { DEBUG_LOG_FILE, checkPrivateDir } from "../store/paths.ts";

export const DEBUG_ENV = "TONGS_AGENTS_DEBUG";
/** The log is rotated to hook.log.1 past this size, so it never holds more than about twice this much. */
export const DEBUG_LOG_MAX_BYTES = 256 * 1024;
const LINE_MAX_BYTES = 2048;

export function debugEnabled(env: NodeJS.ProcessEnv): boolean {
  return env[DEBUG_ENV] === "1";
}

/**
 * Appends to `<state dir>/hook.log` (or another log of ours there: the notifier's), only when the state dir passes the
 * checks the store makes (never through a symlink).
 */
export function appendDebugLog(stateDir: string, entry: Record<string, unknown>, file: string = DEBUG_LOG_FILE): void {
  if (!checkPrivateDir(stateDir).ok) return;
  const path = join(stateDir, file);
  try {
    if ((lstatSync(path, { throwIfNoEntry: false })?.size ?? 0) > DEBUG_LOG_MAX_BYTES) renameSync(path, `${path}.1`);
    const line = `${truncateBytes(JSON.stringify({ time: new Date().toISOString(), pid: process.pid, ...entry }), LINE_MAX_BYTES)}\n`;
    // Non-blocking: a FIFO planted as hook.log would block a plain open (no reader) or write (full pipe) for good, and
    // the hook's watchdog is a timer that cannot fire while the thread is blocked. Only a regular file is written.
    const fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o600,
    );
    try {
      if (fstatSync(fd).isFile()) writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The log is a courtesy; failing to write it must not change what the hook does.
  }
}
