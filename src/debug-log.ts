// A bounded debug log for the hook, written only when the user asks (TONGS_AGENTS_DEBUG=1). The hook never prints.
import { closeSync, constants, openSync, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { truncateBytes } from "./bounds.ts";

export const DEBUG_ENV = "TONGS_AGENTS_DEBUG";
export const DEBUG_LOG_FILE = "hook.log";
/** The log is rotated to hook.log.1 past this size, so it never holds more than about twice this much. */
export const DEBUG_LOG_MAX_BYTES = 256 * 1024;
const LINE_MAX_BYTES = 2048;

export function debugEnabled(env: NodeJS.ProcessEnv): boolean {
  return env[DEBUG_ENV] === "1";
}

export function appendDebugLog(stateDir: string, entry: Record<string, unknown>, file: string = DEBUG_LOG_FILE): void {
  const path = join(stateDir, file);
  try {
    if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) > DEBUG_LOG_MAX_BYTES) renameSync(path, `${path}.1`);
    const line = `${truncateBytes(JSON.stringify({ time: new Date().toISOString(), pid: process.pid, ...entry }), LINE_MAX_BYTES)}\n`;
    const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The log is a courtesy; failing to write it must not change what the hook does.
  }
}
