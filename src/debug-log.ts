// A bounded debug log for the hook, written only when the user asks (TONGS_AGENTS_DEBUG=1). The hook never prints.
import { constants } from "node:fs";
import { open, rename, stat } from "node:fs/promises";
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

export async function appendDebugLog(stateDir: string, entry: Record<string, unknown>): Promise<void> {
  const path = join(stateDir, DEBUG_LOG_FILE);
  try {
    const size = await stat(path).then((stats) => stats.size, () => 0);
    if (size > DEBUG_LOG_MAX_BYTES) await rename(path, `${path}.1`);
    const line = `${truncateBytes(JSON.stringify({ time: new Date().toISOString(), pid: process.pid, ...entry }), LINE_MAX_BYTES)}\n`;
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.write(line);
    } finally {
      await handle.close();
    }
  } catch {
    // The log is a courtesy; failing to write it must not change what the hook does.
  }
}
