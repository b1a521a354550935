// Running a real Pi against the synthetic provider, in a sandboxed HOME and PI_CODING_AGENT_DIR.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startProvider } from "../../e2e/provider/server.mjs";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import type { InstalledPi } from "./pi-install.ts";

export interface PiWorld {
  readonly sandbox: Sandbox;
  readonly agentDir: string;
  readonly projectDir: string;
  readonly hookLog: string;
  readonly env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** A sandbox whose Pi config points at a fresh synthetic provider (docs: shared facts, "Pointing each CLI ..."). */
export async function piWorld(): Promise<PiWorld> {
  const sandbox = makeSandbox("tongs-live-pi-");
  const provider = await startProvider({ port: 0 });
  const agentDir = sandbox.env.PI_CODING_AGENT_DIR as string;
  const projectDir = join(sandbox.root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(projectDir);
  const models = {
    providers: {
      fake: {
        baseUrl: `${provider.url}/v1`,
        api: "openai-completions",
        apiKey: "FAKE_PI_API_KEY",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "fake-model" }],
      },
    },
  };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(models));
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "fake", defaultModel: "fake-model" }));
  const env: NodeJS.ProcessEnv = {
    ...sandbox.env,
    PI_OFFLINE: "1",
    PI_SKIP_VERSION_CHECK: "1",
    PI_TELEMETRY: "0",
    FAKE_PI_API_KEY: "synthetic",
  };
  delete env.TONGS_AGENTS_HOOK;
  return {
    sandbox,
    agentDir,
    projectDir,
    hookLog: join(sandbox.root, "hook-log.jsonl"),
    env,
    async stop() {
      await provider.stop();
      sandbox.cleanup();
    },
  };
}

export interface PiRun {
  readonly pid: number;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `pi <args>` as a direct child running on this Node.js; resolves when it exits (killed after `timeoutMs`). */
export function runPi(
  pi: InstalledPi,
  args: readonly string[],
  world: PiWorld,
  { env = {}, timeoutMs = 90_000 }: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<PiRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [pi.cli, ...args], {
      cwd: world.projectDir,
      env: { ...world.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ pid: child.pid as number, code, stdout, stderr });
    });
  });
}

export interface HookLogEntry {
  readonly payload: Record<string, unknown>;
  readonly comm: string | null;
  readonly record: Record<string, unknown> | null;
  readonly hookExit: number | null;
  readonly hookOutput: string;
}

export function readHookLog(world: PiWorld): HookLogEntry[] {
  if (!existsSync(world.hookLog)) return [];
  return readFileSync(world.hookLog, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as HookLogEntry);
}

export interface RpcPi {
  readonly pid: number;
  send(command: Record<string, unknown>): void;
  /** The next stdout record matching `test`, failing after `timeoutMs`. */
  next(test: (record: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Close stdin (Pi's orderly shutdown) and wait for exit. */
  close(): Promise<number | null>;
  readonly stderr: () => string;
}

/** `pi --mode rpc <args>`: JSON records in on stdin, out on stdout. */
export function startRpcPi(pi: InstalledPi, args: readonly string[], world: PiWorld, env: NodeJS.ProcessEnv = {}): RpcPi {
  const child = spawn(process.execPath, [pi.cli, "--mode", "rpc", ...args], {
    cwd: world.projectDir,
    env: { ...world.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const records: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      return; // not a protocol record
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let seen = 0;
  return {
    pid: child.pid as number,
    send: (command) => child.stdin.write(`${JSON.stringify(command)}\n`),
    next(test, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          while (seen < records.length) {
            const record = records[seen++] as Record<string, unknown>;
            if (test(record)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(record);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching RPC record within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    stderr: () => stderr,
  };
}
