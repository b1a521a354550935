// A sandboxed world for the live tests: the real harness CLI first on PATH, then this Node (hooks and the harness
// wrappers run on it), with the settings each harness needs to run unattended against a local fake provider.
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { CLI_BIN, runCliProcess } from "../processes.ts";
import type { Sandbox } from "../sandbox.ts";
import { run } from "../../src/core/exec.ts";
import type { InstallContext } from "../../src/install/context.ts";

export function liveWorld(
  sandbox: Sandbox,
  packageRoot: string,
  binDirs: readonly string[],
  extraEnv: NodeJS.ProcessEnv = {},
): InstallContext {
  const nodeDir = join(sandbox.root, "node-bin");
  mkdirSync(nodeDir, { recursive: true });
  try {
    symlinkSync(process.execPath, join(nodeDir, "node"));
  } catch {
    // already linked
  }
  const env: NodeJS.ProcessEnv = {
    ...sandbox.env,
    PATH: [...binDirs, nodeDir, "/usr/bin", "/bin"].join(":"),
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    PI_OFFLINE: "1",
    ...extraEnv,
  };
  return { env, home: sandbox.home, nodePath: process.execPath, nodeVersion: process.versions.node, packageRoot, exec: run };
}

/** `tongs-agents list --all --json` as the installed CLI prints it, for the world's state dir. */
export async function listAll(
  env: NodeJS.ProcessEnv,
): Promise<{ harness: string; session_id: string; identity: string; recorded_status: string; last_event: string }[]> {
  const result = await execa(process.execPath, [CLI_BIN, "list", "--all", "--json"], { env, extendEnv: false, reject: false });
  if (result.exitCode !== 0) throw new Error(`list failed: ${result.stderr}`);
  return (
    JSON.parse(result.stdout) as {
      sessions: { harness: string; session_id: string; identity: string; recorded_status: string; last_event: string }[];
    }
  ).sessions.filter((session) => session.identity !== "discovered");
}

/** Each record file's name, size and modification time: what `list` reads of the state dir. */
function recordsSignature(stateDir: string): string {
  const sessions = join(stateDir, "sessions");
  try {
    return readdirSync(sessions)
      .sort()
      .map((name) => {
        const stats = statSync(join(sessions, name), { throwIfNoEntry: false });
        return `${name}:${stats?.size}:${stats?.mtimeMs}`;
      })
      .join("\n");
  } catch {
    return "(none)";
  }
}

/** How long a look at `list` answers again while the records stay the same (see `listedSessions`). */
const UNCHANGED_LOOK_MS = 2000;

/**
 * The sessions `tongs-agents list --json` prints with `args` (such as `--all`) for `env`'s state dir, as a wait looks at
 * them again and again. Each look runs the real CLI, a Node process (about 0.15 CPU-s on these machines); while the
 * record files are as they were at the last look (names, sizes, modification times) and that look is under 2 s old,
 * the last look's answer is given instead: nothing `list` reads has changed. What it derives from processes and time,
 * not records (a session whose process died), shows at most 2 s later.
 */
export function listedSessions<T>(env: NodeJS.ProcessEnv, args: readonly string[] = []): () => Promise<T[]> {
  const stateDir = env.TONGS_AGENTS_STATE_DIR;
  let last: { signature: string; at: number; sessions: T[] } | undefined;
  return async () => {
    const signature = stateDir ? recordsSignature(stateDir) : "";
    if (stateDir && last && last.signature === signature && Date.now() - last.at < UNCHANGED_LOOK_MS) return last.sessions;
    const run = await runCliProcess(["list", ...args, "--json"], env);
    last = { signature, at: Date.now(), sessions: (JSON.parse(run.stdout) as { sessions: T[] }).sessions };
    return last.sessions;
  };
}

/**
 * Wait (bounded) until every event the hook shim spooled in `stateDir` was taken by its worker, which logs before its
 * entry goes: with the shim the harness has moved on (or exited) before the event is applied, and the spool says when.
 */
export async function spoolDrained(stateDir: string, timeoutMs = 60_000): Promise<void> {
  const spool = join(stateDir, "incoming");
  const pending = () => (existsSync(spool) ? readdirSync(spool).filter((name) => name.endsWith(".ev")) : []);
  const deadline = Date.now() + timeoutMs;
  while (pending().length > 0) {
    if (Date.now() > deadline) throw new Error(`the hook shim's workers left events unapplied: ${pending().join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
