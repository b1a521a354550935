// Running the build's external programs (podman, npm, debootstrap, tar): results, never throws on a failed exit.
import { execa } from "execa";

export interface ExecResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ExecOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export type Exec = (file: string, args: readonly string[], options?: ExecOptions) => Promise<ExecResult>;

export const defaultExec: Exec = async (file, args, { cwd, env } = {}) => {
  const result = await execa(file, args, { cwd, env, reject: false, stdin: "ignore", maxBuffer: 64 * 1024 * 1024 });
  const code = typeof result.exitCode === "number" ? result.exitCode : 1;
  const stderr = result.failed && result.exitCode === undefined ? `${result.stderr}\n${result.shortMessage}` : result.stderr;
  return { code, stdout: result.stdout, stderr };
};

/** The last lines of a program's output, for an error message. */
export function tail(result: ExecResult, lines = 15): string {
  return `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-lines).join("\n");
}
