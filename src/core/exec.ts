// The one process runner: every program tongs-agents starts and waits for (tmux, kitty, wezterm, osascript, xdotool,
// the harnesses' own CLIs) goes through `run` or `runSync` (or, in the keypress server, through the same contract in
// shell-runner.ts). Never throws, never waits forever, and maps the outcome into
// a plain result. Built on node:child_process alone: the focus and picker bundles load nothing heavier. It is required
// at the first run, not at the top: it loads net, dgram and the streams, which `status` and the picker's first screen,
// whose bundles carry this file, never use (docs/benchmarks.md).
import type { SpawnSyncReturns } from "node:child_process";

const childProcess = () => process.getBuiltinModule("node:child_process");

export interface RunResult {
  readonly ok: boolean;
  readonly code: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the program could not be started or was killed at the timeout. */
  readonly failure?: "not-found" | "timeout" | "error";
  /** What went wrong when `failure` is set, in words. */
  readonly detail?: string;
}

export interface RunOptions {
  /** The whole environment of the program (nothing is inherited beyond it); default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** The program's working directory; default: this process's. */
  readonly cwd?: string;
  /** Infinity: no timeout (a command that lasts as long as the user wants, such as a popup). */
  readonly timeoutMs?: number;
  readonly input?: string;
  /**
   * The signal sent at the timeout (default SIGTERM, then SIGKILL after a grace). SIGKILL at once for a read that has
   * nothing to clean up and must keep its bound (an ssh read under a status line).
   */
  readonly killSignal?: "SIGTERM" | "SIGKILL";
}

export type Runner = (file: string, args: readonly string[], options?: RunOptions) => Promise<RunResult>;

export const DEFAULT_TIMEOUT_MS = 3000;
/** Output kept per stream: a program that prints more is not one whose output we parse. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/** After the timeout's SIGTERM, a program that has not exited gets SIGKILL this much later. */
export const KILL_AFTER_MS = 2000;

export const stripFinalNewline = (text: string): string =>
  text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;

export function failureOf(
  error: NodeJS.ErrnoException | undefined,
  timedOutAfterMs: number | undefined,
): Pick<RunResult, "failure" | "detail"> {
  if (timedOutAfterMs !== undefined) return { failure: "timeout", detail: `timed out after ${timedOutAfterMs} ms` };
  if (error?.code === "ENOENT") return { failure: "not-found", detail: `${error.path ?? "program"} not found` };
  return error ? { failure: "error", detail: error.message } : {};
}

export const run: Runner = (file, args, { env, cwd, timeoutMs = DEFAULT_TIMEOUT_MS, input, killSignal = "SIGTERM" } = {}) =>
  new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let startError: NodeJS.ErrnoException | undefined;
    const child = childProcess().spawn(file, [...args], {
      env: env ?? process.env,
      ...(cwd === undefined ? {} : { cwd }),
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      if ((outBytes += chunk.length) <= MAX_OUTPUT_BYTES) out.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if ((errBytes += chunk.length) <= MAX_OUTPUT_BYTES) err.push(chunk);
    });
    child.on("error", (error) => (startError = error));
    if (input !== undefined) {
      child.stdin?.on("error", () => undefined); // a program that exits without reading its input
      child.stdin?.end(input);
    }
    // Past the timeout, an exited program's output is not waited for: another process may hold the pipes open (an ssh
    // client that passed them to its shared connection, a daemon it started), and `close` would wait for that one.
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    const abandonOutput = () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    child.on("exit", () => {
      if (timedOut) abandonOutput();
    });
    const timer =
      timeoutMs === Infinity
        ? undefined
        : setTimeout(() => {
            // It exited in time, but something it started still holds its output open: keep the output so far.
            if (exited()) return abandonOutput();
            timedOut = true;
            child.kill(killSignal);
            if (killSignal !== "SIGKILL") setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS).unref();
          }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const failure = failureOf(startError, timedOut ? timeoutMs : undefined);
      resolve({
        ok: failure.failure === undefined && code === 0,
        code: code ?? undefined,
        stdout: stripFinalNewline(Buffer.concat(out).toString("utf8")),
        stderr: stripFinalNewline(Buffer.concat(err).toString("utf8")),
        ...failure,
      });
    });
  });

/** The same, blocking: for the few callers that must not yield (a hook step in the demo, a version probe). */
export function runSync(
  file: string,
  args: readonly string[],
  { env, cwd, timeoutMs = DEFAULT_TIMEOUT_MS, input }: RunOptions = {},
): RunResult {
  const result: SpawnSyncReturns<string> = childProcess().spawnSync(file, [...args], {
    env: env ?? process.env,
    ...(cwd === undefined ? {} : { cwd }),
    ...(timeoutMs === Infinity ? {} : { timeout: timeoutMs }),
    killSignal: "SIGKILL",
    maxBuffer: MAX_OUTPUT_BYTES,
    encoding: "utf8",
    ...(input === undefined ? { stdio: ["ignore", "pipe", "pipe"] } : { input }),
  });
  const error = result.error as NodeJS.ErrnoException | undefined;
  const failure = failureOf(error?.code === "ETIMEDOUT" ? undefined : error, error?.code === "ETIMEDOUT" ? timeoutMs : undefined);
  return {
    ok: failure.failure === undefined && result.status === 0,
    code: result.status ?? undefined,
    stdout: stripFinalNewline(result.stdout ?? ""),
    stderr: stripFinalNewline(result.stderr ?? ""),
    ...failure,
  };
}
