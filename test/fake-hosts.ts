// A fake ssh for unit tests: each destination is a "machine" with its own sandboxed state dir, where the quoted remote
// command is split into words by a real sh (so the quoting is what decides) and run by our own CLI in-process.
import { execFileSync } from "node:child_process";
import type { RunResult, Runner } from "../src/core/exec.ts";
import type { CliContext } from "../src/cli/context.ts";
import { canonicalId, digestOf } from "../src/core/identity.ts";
import type { SessionRecord } from "../src/core/schema.ts";
import { ensureStateDirs } from "../src/store/paths.ts";
import { writeRecord } from "../src/store/records.ts";
import { fakeProcess, fakeProcessSource } from "./fake-processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

export interface FakeMachine {
  readonly context: CliContext;
  /** Set to answer like ssh does for a host it cannot reach (exit 255 and its message). */
  readonly unreachable?: string;
  /** Replace the answer entirely (a misbehaving host). */
  readonly answer?: RunResult;
  /** Answer some commands (by their words) instead of the CLI, e.g. a focus that moves a real tmux client there. */
  readonly answers?: (words: readonly string[]) => RunResult | undefined;
}

export interface SshCall {
  readonly destination: string;
  readonly words: string[];
  readonly args: readonly string[];
}

/** Split a remote command line the way the remote login shell would. */
export function shellWords(command: string): string[] {
  const out = execFileSync("sh", ["-c", `printf '%s\\0' ${command}`]).toString("utf8");
  return out.split("\0").slice(0, -1);
}

export function fakeSsh(machines: Record<string, FakeMachine>, calls: SshCall[] = []): Runner {
  return async (file, args) => {
    if (file !== "ssh") throw new Error(`expected ssh, got ${file}`);
    const dash = args.indexOf("--");
    const destination = args[dash + 1] ?? "";
    const words = shellWords(args[dash + 2] ?? "");
    calls.push({ destination, words, args });
    const machine = machines[destination];
    if (!machine)
      return { ok: false, code: 255, stdout: "", stderr: `ssh: Could not resolve hostname ${destination}: Name or service not known` };
    if (machine.unreachable !== undefined) return { ok: false, code: 255, stdout: "", stderr: machine.unreachable };
    if (machine.answer) return machine.answer;
    const canned = machine.answers?.(words);
    if (canned) return canned;
    if (words[0] !== "tongs-agents") return { ok: false, code: 127, stdout: "", stderr: `sh: 1: ${words[0]}: not found` };
    const { runCli } = await import("../src/cli/run.ts");
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(words.slice(1), machine.context, {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      color: false,
      columns: 200,
    });
    return { ok: code === 0, code, stdout: out.join("\n"), stderr: err.join("\n") };
  };
}

/** A machine with records for `sessions` ([session id, pid, status]), every pid alive, each in `terminal`. */
export function fakeMachine(
  sandboxes: Sandbox[],
  sessions: [string, number, SessionRecord["status"]][],
  NOW: number,
  terminal: SessionRecord["terminal"] = { env: {} },
): CliContext {
  const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
  const sandbox = makeSandbox();
  sandboxes.push(sandbox);
  const { sessionsDir } = ensureStateDirs(sandbox.stateDir);
  for (const [session, pid, status] of sessions) {
    const id = canonicalId("claude", session, `pid:${pid}`);
    writeRecord(sessionsDir, digestOf(id) as string, {
      schema_version: 1,
      canonical_id: id,
      harness: "claude",
      session_id: session,
      instance_id: `pid:${pid}`,
      identity: "process",
      pid,
      process_start: `linux:boot:${pid}00`,
      cwd: `/work/${session}`,
      status,
      detail: `${status} detail`,
      tool: "",
      sequence: null,
      arrival_sequence: 1,
      last_event: "claude.x",
      created_at: at(600),
      updated_at: at(60),
      status_changed_at: at(60),
      terminal,
    });
  }
  return {
    env: sandbox.env,
    stateDir: sandbox.stateDir,
    cwd: sandbox.root,
    processes: fakeProcessSource(sessions.map(([, pid]) => fakeProcess(pid, 1, "claude"))),
    listProcesses: async () => [],
    now: () => NOW,
  };
}
