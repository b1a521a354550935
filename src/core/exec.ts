// Running terminal programs (tmux, kitty, wezterm, osascript, xdotool): never throws, never waits forever, and maps
// the outcome into a plain result (execa with reject: false).
import { execa } from "execa";

export interface RunResult {
  readonly ok: boolean;
  readonly code: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the program could not be started or was killed at the timeout. */
  readonly failure?: "not-found" | "timeout" | "error";
}

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly input?: string;
}

export type Runner = (file: string, args: readonly string[], options?: RunOptions) => Promise<RunResult>;

export const DEFAULT_TIMEOUT_MS = 3000;

export const run: Runner = async (file, args, { env, timeoutMs = DEFAULT_TIMEOUT_MS, input } = {}) => {
  const result = await execa(file, [...args], {
    reject: false,
    timeout: timeoutMs,
    stdin: input === undefined ? "ignore" : "pipe",
    ...(input === undefined ? {} : { input }),
    ...(env ? { env, extendEnv: false } : {}),
    stripFinalNewline: true,
  });
  const failure = result.timedOut ? "timeout" : (result as { code?: string }).code === "ENOENT" ? "not-found" : result.failed && result.exitCode === undefined ? "error" : undefined;
  return {
    ok: !result.failed && result.exitCode === 0,
    code: result.exitCode,
    stdout: typeof result.stdout === "string" ? result.stdout : "",
    stderr: typeof result.stderr === "string" ? result.stderr : "",
    ...(failure ? { failure } : {}),
  };
};
