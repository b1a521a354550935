// Thousands of hostile invocations of the hook: through the real bundled binary (exit code, stdout, stderr, wall time)
// and in-process through the same pipeline (many more, cheaply). After each batch: nothing written outside the state
// dir, every record in it valid, no secret from the environment stored, no prototype polluted.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runHook as runHookInProcess, type HookContext } from "../../src/hook/pipeline.ts";
import { fakeProcess, fakeProcessSource } from "../fake-processes.ts";
import { runNode, HOOK_BIN, startFakeHarness, type FakeHarness } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { hostileRuns, type HostileRun } from "./hostile-input.ts";
import { checkState, max, ms, pool, printFigures, tree } from "./support.ts";

const SEED = Number(process.env.TONGS_AGENTS_FUZZ_SEED ?? Date.now() % 2 ** 31);
const PROCESS_RUNS = 1000;
const IN_PROCESS_RUNS = 20_000;
/** Generous: the hook's own bounds are 2 s for input and 0.9 s of work; Node's start-up under load comes on top. */
const WALL_BOUND_MS = 8000;

let sandbox: Sandbox;
let outside: string;
let cwd: string;
let pi: FakeHarness;
beforeAll(async () => {
  sandbox = makeSandbox("tongs-adv-payloads-");
  outside = join(sandbox.root, "outside");
  cwd = join(sandbox.root, "cwd", "a", "b");
  mkdirSync(outside);
  mkdirSync(cwd, { recursive: true });
  pi = await startFakeHarness("pi", sandbox);
});
afterAll(async () => {
  await pi.stop();
  sandbox.cleanup();
});

function expectNoEscape(before: Map<string, string>, stateDirs: readonly string[]): void {
  const after = tree(sandbox.root, stateDirs);
  const changed = [...after].filter(([path, kind]) => before.get(path) !== kind && !path.startsWith("bin-pi-"));
  expect(changed, "files written outside the state dir").toEqual([]);
  expect(readdirSync(outside)).toEqual([]);
  expect(existsSync(join(process.cwd(), "pwned")), "a file named by a payload in the repository").toBe(false);
  expect(({} as Record<string, unknown>).polluted, "Object.prototype polluted").toBeUndefined();
}

function expectCleanState(stateDir: string): { records: number; tombstones: number; problems: string[] } {
  const state = checkState(stateDir);
  const sessions = join(stateDir, "sessions");
  for (const name of existsSync(sessions) ? readdirSync(sessions).filter((entry) => entry.endsWith(".json")) : []) {
    expect(readFileSync(join(sessions, name), "utf8"), `${name} holds a secret from the environment`).not.toContain("canary-never-stored");
  }
  return state;
}

/** After the figures are printed: the state dir holds only valid records and the store's own files. */
function expectNoProblems(state: { problems: string[] }): void {
  expect(state.problems, "the state dir after hostile input").toEqual([]);
}

describe("hostile payloads", () => {
  // Each invocation's own bound is asserted below; the whole run's time is the machine's (about 90 s on two quiet
  // cores), so the test's time-out leaves room for a busy machine rather than failing on it.
  it(
    `${PROCESS_RUNS} hostile invocations of the real hook binary: exit 0, silent, bounded, nothing outside the state dir`,
    { timeout: 300_000 },
    async () => {
      const stateDir = join(sandbox.root, "state-process");
      const runs = hostileRuns(PROCESS_RUNS, SEED, outside, pi.pid);
      const before = tree(sandbox.root, [stateDir]);
      const started = performance.now();
      const results = await pool(runs, 6, async (run: HostileRun) => {
        const env = { ...sandbox.env, ...run.env, TONGS_AGENTS_STATE_DIR: stateDir };
        return { run, result: await runNode(HOOK_BIN, run.argv, { input: run.input, env, cwd }) };
      });
      const elapsed = performance.now() - started;
      const failures = results.filter(
        ({ result }) => result.code !== 0 || result.stdout !== "" || result.stderr !== "" || result.ms > WALL_BOUND_MS,
      );
      const state = expectCleanState(stateDir);
      printFigures("hostile payloads, real hook binary", {
        seed: SEED,
        invocations: runs.length,
        "distinct shapes": new Set(runs.map((run) => run.shape.replace(/^(\S+) \S*: /, "$1: "))).size,
        "exit 0, silent, within bound": results.length - failures.length,
        "max wall time": ms(max(results.map(({ result }) => result.ms))),
        "records left (valid)": state.records,
        "invalid records or unexpected files": state.problems.length,
        "total time": ms(elapsed),
      });
      expectNoProblems(state);
      expect(
        failures.map(({ run, result }) => ({
          shape: run.shape,
          argv: run.argv,
          code: result.code,
          stdout: result.stdout.slice(0, 200),
          stderr: result.stderr.slice(0, 200),
          ms: Math.round(result.ms),
        })),
      ).toEqual([]);
      expectNoEscape(before, [stateDir]);
    },
  );

  it(`${IN_PROCESS_RUNS} hostile invocations in-process through the same pipeline: an outcome for each, never a thrown error`, async () => {
    const stateDir = join(sandbox.root, "state-in-process");
    // hook(300) -> sh(200) -> claude(100); codex(110); the Pi process named by the payloads.
    const processes = fakeProcessSource([
      fakeProcess(300, 200, "node"),
      fakeProcess(200, 100, "sh"),
      fakeProcess(100, 1, "claude"),
      fakeProcess(110, 1, "codex"),
      fakeProcess(pi.pid, 1, "pi"),
    ]);
    const runs = hostileRuns(IN_PROCESS_RUNS, SEED + 1, outside, pi.pid);
    const before = tree(sandbox.root, [join(sandbox.root, "state-process"), stateDir]);
    const outcomes = new Map<string, number>();
    const thrown: string[] = [];
    let slowest = 0;
    const started = performance.now();
    for (const [index, run] of runs.entries()) {
      const context: HookContext = {
        env: { ...run.env },
        ppid: index % 2 === 0 ? 200 : 110,
        processes,
        stateDir,
        now: Date.now,
        scanBoundMs: 150,
        lockBoundMs: 650,
      };
      const input = run.input;
      const one = performance.now();
      try {
        const outcome = await runHookInProcess(run.argv, input, context);
        const key = outcome.ok ? outcome.action : `rejected: ${outcome.stage}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      } catch (error) {
        thrown.push(`${run.shape}: ${String(error)}`);
      }
      slowest = Math.max(slowest, performance.now() - one);
    }
    const state = expectCleanState(stateDir);
    printFigures("hostile payloads, in-process pipeline", {
      seed: SEED + 1,
      invocations: runs.length,
      ...Object.fromEntries([...outcomes].sort()),
      "thrown errors": thrown.length,
      "max time of one": ms(slowest),
      "records left (valid)": state.records,
      "invalid records or unexpected files": state.problems.length,
      "total time": ms(performance.now() - started),
    });
    expectNoProblems(state);
    expect(thrown).toEqual([]);
    expect(outcomes.get("rejected: store") ?? 0, "store failures on a healthy state dir").toBe(0);
    expectNoEscape(before, [join(sandbox.root, "state-process"), stateDir]);
  });
});
