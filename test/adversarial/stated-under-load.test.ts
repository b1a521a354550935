// A Codex turn ended by an API error fires no hook: the error is seen only in Codex's rollout (docs/harness-facts.md),
// which readers read before they answer (src/fleet/stated.ts). Under load it must still show: 4 processes hog both
// cores and 4 readers poll `list --json`, while a stand-in `codex` (a process of that exact name) starts its session and
// submits a prompt through the real hook shim (as codex runs hooks: directly, not through a shell), and then its rollout
// says the turn failed (the line captured from Codex 0.171.0). 20 trials: each session shows `error` within 10 s of the
// rollout line, and the figures are printed.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hookCommand } from "../../src/install/command.ts";
import { CLI_BIN, HOOK_BIN, ROOT, runNode, startFakeHarness, type FakeHarness } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { printFigures } from "./support.ts";

const TRIALS = 20;
const HOGS = 4;
const READERS = 4;
const BOUND_MS = 10_000;
const FIXTURE = join(ROOT, "src", "harnesses", "codex", "fixtures", "rollout-api-error.jsonl");

let sandbox: Sandbox;
const started: ChildProcess[] = [];
let codex: FakeHarness | undefined;
beforeEach(() => {
  sandbox = makeSandbox("tongs-adv-stated-");
});
afterEach(async () => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  await codex?.stop();
  sandbox.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The captured failed-turn line, stamped now. */
function failedTurnLine(): string {
  const line = readFileSync(FIXTURE, "utf8")
    .split("\n")
    .find((text) => text.includes('"task_complete"')) as string;
  const parsed = JSON.parse(line) as { timestamp: string };
  return `${JSON.stringify({ ...parsed, timestamp: new Date().toISOString() })}\n`;
}

describe("a Codex API error under load", { timeout: 600_000 }, () => {
  it(`shows as error within ${BOUND_MS / 1000} s in ${TRIALS} of ${TRIALS} trials, with ${HOGS} CPU hogs and ${READERS} readers polling`, async () => {
    for (let hog = 0; hog < HOGS; hog++) started.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
    codex = await startFakeHarness("codex", sandbox);
    const harness = codex;
    let reading = true;
    let reads = 0;
    const readers = Array.from({ length: READERS }, async () => {
      while (reading) {
        await runNode(CLI_BIN, ["list", "--json"], { env: sandbox.env });
        reads++;
      }
    });
    const rollouts = join(sandbox.home, ".codex", "sessions");
    mkdirSync(rollouts, { recursive: true });
    const times: number[] = [];
    const failures: string[] = [];
    try {
      for (let trial = 0; trial < TRIALS; trial++) {
        const session = `0000000${trial}-aaaa-bbbb-cccc-dddddddddddd`;
        const rollout = join(rollouts, `rollout-${session}.jsonl`);
        writeFileSync(rollout, "");
        const payload = (event: string) => ({
          session_id: session,
          transcript_path: rollout,
          cwd: `/work/${trial}`,
          hook_event_name: event,
        });
        // As Codex does: the hook is its own child (no shell), waited for; then the turn fails with no hook.
        for (const [alias, event] of [
          ["session-start", "SessionStart"],
          ["prompt-submit", "UserPromptSubmit"],
        ] as const) {
          // `exec`: the shell becomes the hook, so the hook's parent is the stand-in codex itself.
          const command = `exec ${hookCommand({ node: process.execPath, hook: HOOK_BIN, alias, agent: "codex", mode: "shim" })}`;
          const run = await harness.emit(alias, "codex", payload(event), { shell: true, command });
          expect([run.code, run.stdout, run.stderr]).toEqual([0, "", ""]);
        }
        const failedAt = Date.now();
        appendFileSync(rollout, failedTurnLine());
        let shown = false;
        while (!shown && Date.now() - failedAt < BOUND_MS) {
          const listed = await runNode(CLI_BIN, ["list", "--json"], { env: sandbox.env });
          const sessions = (JSON.parse(listed.stdout) as { sessions: { session_id: string; status: string }[] }).sessions;
          shown = sessions.some((entry) => entry.session_id === session && entry.status === "error");
          if (!shown) await sleep(100);
        }
        // Shown when the listing that showed it returned: one started inside the bound but answering after it is late.
        const tookMs = Date.now() - failedAt;
        if (shown && tookMs <= BOUND_MS) times.push(tookMs);
        else failures.push(`trial ${trial}: ${shown ? `error shown after ${tookMs} ms` : `not error within ${BOUND_MS} ms`}`);
      }
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    const sorted = [...times].sort((a, b) => a - b);
    printFigures(`a Codex API error under ${HOGS} CPU hogs and ${READERS} polling readers`, {
      trials: TRIALS,
      "shown as error within the bound": times.length,
      "time to error, median": `${sorted[Math.floor(sorted.length / 2)] ?? "n/a"} ms`,
      "time to error, max": `${sorted.at(-1) ?? "n/a"} ms`,
      "reader runs meanwhile": reads,
      "load average at the end": readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
    });
    expect(failures).toEqual([]);
  });
});
