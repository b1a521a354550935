// Real processes for tests: the built hook binary, and fake harness processes with exact process names.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { FocusResult } from "../src/focus/result.ts";
import type { ServerStatus } from "../src/server/protocol.ts";
import { hookCommandLine } from "../src/install/command.ts";
import { shellCommand } from "../src/core/shell-quote.ts";
import type { Sandbox } from "./sandbox.ts";

export const ROOT = resolve(import.meta.dirname, "..");
export const HOOK_BIN = join(ROOT, "bin", "tongs-agents-hook.cjs");
export const CLI_BIN = join(ROOT, "bin", "tongs-agents.js");
const FAKE_HARNESS = join(ROOT, "test", "fixtures", "fake-harness.mjs");

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export const KEY_CLIENT = join(ROOT, "bin", "tongs-agents-key.sh");

export function runNode(
  script: string,
  args: readonly string[],
  options: { input?: string | Buffer; env: NodeJS.ProcessEnv; cwd?: string },
): Promise<ProcessResult> {
  return runProgram(process.execPath, [script, ...args], options);
}

export function runProgram(
  program: string,
  args: readonly string[],
  { input = "", env, cwd }: { input?: string | Buffer; env: NodeJS.ProcessEnv; cwd?: string },
): Promise<ProcessResult> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(program, args, { env, cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

export const runHook = (args: readonly string[], input: string | Buffer, env: NodeJS.ProcessEnv) => runNode(HOOK_BIN, args, { input, env });
export const runCliProcess = (args: readonly string[], env: NodeJS.ProcessEnv) => runNode(CLI_BIN, args, { env });
/** A verb through the shell client (bin/tongs-agents-key.sh), as the tmux keys run it. */
export const runKeyClient = (args: readonly string[], env: NodeJS.ProcessEnv) =>
  runProgram("/bin/sh", [KEY_CLIENT, process.execPath, ...args], { env });

/** `tongs-agents serve --status --json` (docs/server.md): the keypress server's status, `running: false` when none. */
export function keypressServerStatus(env: NodeJS.ProcessEnv): { running: boolean } & Partial<ServerStatus> {
  const shown = spawnSync(process.execPath, [CLI_BIN, "serve", "--status", "--json"], { env, encoding: "utf8" });
  return JSON.parse(shown.stdout) as { running: boolean } & Partial<ServerStatus>;
}

/** `tongs-agents focus <query> --json [extra args]` as a process: its exit code and the result it printed. */
export async function runFocus(
  query: string,
  env: NodeJS.ProcessEnv,
  extraArgs: readonly string[] = [],
): Promise<{ code: number | null; result: FocusResult }> {
  const args = ["focus", query, "--json", ...extraArgs];
  const run = await runCliProcess(args, env);
  if (run.stdout === "") throw new Error(`tongs-agents ${args.join(" ")} printed nothing (exit ${run.code}): ${run.stderr}`);
  return { code: run.code, result: JSON.parse(run.stdout) as FocusResult };
}

/** The hook command line a harness would run, built as the installer builds it. */
export function hookCommand(alias: string, agent: string): string {
  return hookCommandLine({ node: process.execPath, hook: HOOK_BIN, alias, agent });
}

export interface FakeHarness {
  readonly pid: number;
  /** Run the hook as this harness does: Claude Code through `/bin/sh -c`, Codex as a direct child. */
  emit(alias: string, agent: string, payload: unknown, options?: EmitOptions): Promise<HookRun>;
  /** Run one hook per payload, all at once. */
  emitMany(alias: string, agent: string, payloads: readonly unknown[], options?: EmitOptions): Promise<HookRun[]>;
  stop(): Promise<void>;
}

export interface EmitOptions {
  readonly shell?: boolean;
  /** The command line run through `/bin/sh -c` (default: the synchronous hook's, as the installer writes it). */
  readonly command?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export type HookRun = ProcessResult & { hookPid: number };

export async function startFakeHarness(name: string, sandbox: Sandbox, env: NodeJS.ProcessEnv = {}): Promise<FakeHarness> {
  const dir = join(sandbox.root, `bin-${name}-${Math.random().toString(16).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const executable = join(dir, name);
  symlinkSync(process.execPath, executable);
  const child: ChildProcessWithoutNullStreams = spawn(executable, [FAKE_HARNESS], { env: { ...sandbox.env, ...env } });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let queue: Promise<unknown> = Promise.resolve();
  const request = (
    alias: string,
    agent: string,
    payload: unknown,
    { shell = agent === "claude", env: extra = {}, command }: EmitOptions,
  ) => {
    const text = typeof payload === "string" ? payload : JSON.stringify(payload);
    return shell
      ? { shell: true, command: command ?? hookCommand(alias, agent), payload: text, env: extra }
      : { command: process.execPath, args: [HOOK_BIN, alias, "--agent", agent], payload: text, env: extra };
  };
  const send = (runs: unknown[]): Promise<HookRun[]> => {
    const result = queue.then(async () => {
      child.stdin.write(`${JSON.stringify({ runs })}\n`);
      const next = await lines.next();
      if (next.done) throw new Error(`fake ${name} exited`);
      return (JSON.parse(next.value) as { results: HookRun[] }).results;
    });
    queue = result.catch(() => undefined);
    return result;
  };
  return {
    pid: child.pid as number,
    emit: async (alias, agent, payload, options = {}) => (await send([request(alias, agent, payload, options)]))[0] as HookRun,
    emitMany: (alias, agent, payloads, options = {}) => send(payloads.map((payload) => request(alias, agent, payload, options))),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.on("exit", resolve));
      process.kill(child.pid as number, "SIGTERM");
      await exited;
    },
  };
}

/**
 * Stop a test's private tmux server and wait (bounded) until the programs that ran in its panes are gone, so that a
 * harness still exiting cannot write into a sandbox being removed. What outlives the bound gets SIGKILL, by PID.
 */
export async function stopTmuxServer(socket: string, boundMs = 5000): Promise<void> {
  const listed = spawnSync("tmux", ["-S", socket, "list-panes", "-a", "-F", "#{pane_pid}"], { encoding: "utf8" });
  const pids = (listed.stdout ?? "").split("\n").filter(Boolean).map(Number);
  spawnSync("tmux", ["-S", socket, "kill-server"]);
  const running = (pid: number) => {
    try {
      return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + boundMs;
  while (pids.some(running) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const pid of pids.filter(running)) process.kill(pid, "SIGKILL");
}

/** `tongs-agents` in `dir` as a global npm install puts it on PATH: a command that runs this checkout's bin. */
export function cliCommandIn(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "tongs-agents");
  writeFileSync(path, `#!/bin/sh\nexec ${shellCommand([process.execPath, CLI_BIN])} "$@"\n`);
  chmodSync(path, 0o755);
  return dir;
}
