// A sandboxed world for the live tests: the real harness CLI first on PATH, then this Node (hooks and the harness
// wrappers run on it), with the settings each harness needs to run unattended against a local fake provider.
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { CLI_BIN } from "../processes.ts";
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
