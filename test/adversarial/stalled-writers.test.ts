// Writers that stall or die in the middle of a write (docs/reliability.md, "Stalled and killed writers"). A holder of a
// record's lock is stopped (SIGSTOP) at each named point of its write, its lock taken over by another writer once stale
// (after 500 ms here instead of 2 s: the takeover and its fencing are the same), and then continued; or killed
// (SIGKILL) at that point and another writer goes on. 20 trials of each, on a record of their own: the first event is
// applied once, the later one once, and the record ends in the later one's state. Then the same at the level of the
// whole event path: real hook shims from stand-in agents while the drainer is killed again and again, and while one
// drainer is stopped past the staleness while the hooks go on (they start another), then continued.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, processInstanceId } from "../../src/core/identity.ts";
import { linuxProcessSource } from "../../src/core/proc.ts";
import type { LifecycleEvent } from "../../src/core/schema.ts";
import type { FaultPoint } from "../../src/store/fault-points.ts";
import { namedDrainer } from "../../src/store/drainer-process.ts";
import { ensureStateDirs, sessionsDirOf } from "../../src/store/paths.ts";
import { readRecord, recordPath } from "../../src/store/records.ts";
import { applyBatch } from "../../src/store/transaction.ts";
import { hookCommand as commandOf } from "../../src/install/command.ts";
import { HOOK_BIN, ROOT, startFakeHarness, type FakeHarness } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { bundleFixture, checkState, pool, printFigures } from "./support.ts";

const TRIALS = 20;
/** How long the second writer waits before it takes over a stopped holder's lock (the product's is STALE_LOCK_MS). */
const STALE_MS = 500;
const POINTS: readonly FaultPoint[] = ["locked", "read", "temp-written", "before-rename", "written"];
let holder: { path: string; dir: string };
beforeAll(() => {
  holder = bundleFixture(join(ROOT, "test", "adversarial", "fixtures", "batch-holder.ts"));
});
afterAll(() => rmSync(holder.dir, { recursive: true, force: true }));

let sandbox: Sandbox;
let sessionsDir: string;
let token: string;
beforeEach(async () => {
  sandbox = makeSandbox("tongs-adv-stall-");
  sessionsDir = (ensureStateDirs(sandbox.stateDir) as { sessionsDir: string }).sessionsDir;
  token = (await linuxProcessSource().basics(process.pid))?.startToken as string;
});
afterEach(() => sandbox.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An event of session `session` of this (live) process, as the drainer would have identified it. */
function event(session: string, which: "first" | "second"): LifecycleEvent {
  const instance = processInstanceId(process.pid, token);
  return {
    harness: "claude",
    alias: which === "first" ? "prompt-submit" : "stop",
    eventId: which === "first" ? "claude.prompt-submit" : "claude.stop",
    canonicalId: canonicalId("claude", session, instance),
    sessionId: session,
    instanceId: instance,
    identity: "process",
    pid: process.pid,
    processStart: token,
    cwd: "/w",
    status: which === "first" ? "running" : "idle",
    detail: which,
    tool: "",
    sequence: null,
    startsSession: false,
    mayCreate: true,
    // Every trial's session is of this one process: as a shared daemon's, so that starting one does not end the others.
    sharedProcess: true,
    terminal: { env: {} },
  };
}

/** Queue an event as an entry file (named as the shim names its entries), as the drainer hands them to applyBatch. */
function queue(dir: string, name: string, queued: LifecycleEvent): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ event: queued }), { mode: 0o600 });
  return path;
}

interface Holder {
  readonly child: ChildProcess;
  readonly reached: Promise<string>;
  readonly result: Promise<string>;
}

function startHolder(digest: string, point: FaultPoint, paths: readonly string[]): Holder {
  const child = spawn(process.execPath, [holder.path, sessionsDir, digest, point, ...paths], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const reached = lines.next().then((line) => String(line.value ?? "(ended)"));
  const result = reached.then(async () => String((await lines.next()).value ?? "(killed)"));
  return { child, reached, result };
}

interface Trial {
  readonly point: FaultPoint;
  readonly how: "stop" | "kill";
  readonly index: number;
}

/** One trial: the holder stalls or dies at `point` while applying the first event; another writer applies both. */
async function trial({ point, how, index }: Trial): Promise<{ problems: string[]; holderSaid: string }> {
  const session = `${how}-${point}-${index}`;
  const first = event(session, "first");
  const digest = digestOf(first.canonicalId) as string;
  const dir = join(sandbox.stateDir, "incoming", session);
  const one = queue(dir, `${1000 + index}-1.ev`, first);
  const holder = startHolder(digest, point, [one]);
  expect(await holder.reached).toBe(`at ${point}`);
  if (how === "kill") holder.child.kill("SIGKILL");
  const two = queue(dir, `${1001 + index}-2.ev`, event(session, "second"));
  // The holder is stopped (alive) or dead: the other writer waits for the lock (stale after 2 s), or takes it at once.
  const other = await applyBatch(
    sessionsDir,
    digest,
    [one, two].map((path, at) => ({ path, event: at === 0 ? first : event(session, "second"), at: Date.now() })),
    // Staleness shortened from 2 s so a hundred trials fit in CI's time: the takeover and its fencing are the same.
    { stateDir: sandbox.stateDir, now: Date.now, lockBoundMs: 30_000, staleLockMs: STALE_MS },
  );
  if (how === "stop") holder.child.kill("SIGCONT");
  const holderSaid = await holder.result;
  await new Promise((resolve) =>
    holder.child.exitCode !== null || holder.child.signalCode !== null ? resolve(undefined) : holder.child.on("exit", resolve),
  );
  const problems: string[] = [];
  if (!other.ok) problems.push(`${session}: the other writer failed: ${other.detail}`);
  const read = readRecord(recordPath(sessionsDir, digest));
  if (read.kind !== "record") problems.push(`${session}: no record (${read.kind})`);
  else {
    const { record } = read;
    // Each event applied once: two applied events in all, the later one last.
    if (record.arrival_sequence !== 2) problems.push(`${session}: ${record.arrival_sequence} events applied, not 2`);
    if (record.status !== "idle" || record.detail !== "second")
      problems.push(`${session}: ends ${record.status} "${record.detail}", not idle "second"`);
    const events = (record.history ?? []).map((entry) => entry.event);
    if (events.join(",") !== "claude.prompt-submit,claude.stop") problems.push(`${session}: history ${events.join(",")}`);
  }
  const left = existsSync(dir) ? readdirSync(dir) : [];
  if (left.length > 0) problems.push(`${session}: still queued: ${left.join(", ")}`);
  return { problems, holderSaid };
}

describe("stalled and killed writers", { timeout: 600_000 }, () => {
  it.each([
    ["stop", "stopped"],
    ["kill", "killed"],
  ] as const)(
    `a holder that is %s (%s) at each point of its write, ${TRIALS} trials each: every event once, the last one's state`,
    async (how, _done) => {
      const trials = POINTS.flatMap((point) => Array.from({ length: TRIALS }, (_, index) => ({ point, how, index })));
      const started = performance.now();
      // Side by side: a stopped holder's lock goes stale in 2 s, and the trials' waits overlap.
      const results = await pool(trials, 25, trial);
      const problems = results.flatMap((result) => result.problems);
      const fenced = results.filter((result) => result.holderSaid.includes("the lock was taken over")).length;
      printFigures(`holders ${how === "stop" ? "stopped past the staleness and continued" : "killed"} at each point of a write`, {
        points: POINTS.join(", "),
        trials: trials.length,
        "records with every event applied once, the last one's state":
          trials.length - new Set(problems.map((line) => line.split(":")[0])).size,
        ...(how === "stop" ? { "woken holders whose write was fenced off": fenced } : {}),
        "wall time": `${Math.round(performance.now() - started)} ms`,
      });
      expect(problems).toEqual([]);
      expect(checkState(sandbox.stateDir).problems.filter((line) => !line.includes("incoming"))).toEqual([]);
    },
  );
});

describe("the drainer stalled and killed", { timeout: 300_000 }, () => {
  const AGENTS = 4;
  const EVENTS = 50;
  const harnesses: FakeHarness[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  });

  const shim = (alias: string) => commandOf({ node: process.execPath, hook: HOOK_BIN, alias, agent: "claude", mode: "shim" });

  /** Each agent sends its events one after another through the real shim, as Claude Code does; then its Stop. */
  async function sendAll(): Promise<{ agents: { pid: number; session: string; sent: number }[] }> {
    const agents = await Promise.all(
      Array.from({ length: AGENTS }, async (_, index) => {
        const claude = await startFakeHarness("claude", sandbox);
        harnesses.push(claude);
        const session = `drain-${index}`;
        let sent = 0;
        for (let step = 0; step < EVENTS; step++) {
          const alias = step === 0 ? "session-start" : step === EVENTS - 1 ? "stop" : step % 2 === 1 ? "tool-use" : "tool-done";
          const run = await claude.emit(
            alias,
            "claude",
            { session_id: session, cwd: "/w", tool_name: `T${step}` },
            { shell: true, command: shim(alias) },
          );
          expect([run.code, run.stdout, run.stderr]).toEqual([0, "", ""]);
          sent++;
        }
        return { pid: claude.pid, session, sent };
      }),
    );
    return { agents };
  }

  /** Until nothing is queued and every record has its events (a drainer is started if none runs). */
  async function settled(agents: { pid: number; session: string; sent: number }[]) {
    const deadline = Date.now() + 60_000;
    const { ensureDrainer } = await import("../../src/store/drainer-process.ts");
    for (;;) {
      ensureDrainer(sandbox.stateDir, { env: sandbox.env });
      const counts = await Promise.all(agents.map(async (agent) => countOf(agent)));
      if (counts.every((count, index) => count.arrival >= (agents[index]?.sent ?? 0)) || Date.now() > deadline) return counts;
      await sleep(100);
    }
  }

  async function countOf(agent: { pid: number; session: string }) {
    const basics = await linuxProcessSource().basics(agent.pid);
    const id = canonicalId("claude", agent.session, processInstanceId(agent.pid, basics?.startToken as string));
    const read = readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(id) as string));
    return read.kind === "record"
      ? { arrival: read.record.arrival_sequence, status: read.record.status, last: read.record.last_event }
      : { arrival: 0, status: "none", last: "" };
  }

  const drainerPid = () => Number(namedDrainer(sandbox.stateDir)?.split(" ")[0] ?? 0);

  it(`killed (SIGKILL) at random moments while ${AGENTS} agents send ${EVENTS} events each: every event once`, async () => {
    let killing = true;
    let kills = 0;
    const killer = (async () => {
      while (killing) {
        await sleep(10 + Math.random() * 60);
        const pid = drainerPid();
        if (pid > 0) {
          try {
            process.kill(pid, "SIGKILL");
            kills++;
          } catch {
            // gone meanwhile
          }
        }
      }
    })();
    const { agents } = await sendAll();
    killing = false;
    await killer;
    const counts = await settled(agents);
    printFigures(`the drainer killed while ${AGENTS} agents send ${EVENTS} events each`, {
      "drainers killed": kills,
      "events sent": agents.reduce((sum, agent) => sum + agent.sent, 0),
      "events applied": counts.reduce((sum, count) => sum + count.arrival, 0),
    });
    expect(kills).toBeGreaterThan(5);
    expect(counts).toEqual(agents.map(() => ({ arrival: EVENTS, status: "idle", last: "claude.stop" })));
  });

  it("stopped past the staleness while the agents go on (hooks start another), then continued: every event once", async () => {
    const sending = sendAll();
    let pid = 0;
    for (let tries = 0; pid === 0 && tries < 100; tries++) {
      await sleep(50);
      pid = drainerPid();
    }
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGSTOP");
    let replacement: number;
    try {
      // Stopped: the next hook starts another drainer, which takes over any lock the first holds once it is stale.
      await sleep(3000);
      replacement = drainerPid();
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const { agents } = await sending;
    const counts = await settled(agents);
    printFigures("a drainer stopped for 3 s while the agents go on", { "stopped drainer": pid, "drainer named meanwhile": replacement });
    expect(replacement).not.toBe(pid);
    expect(counts).toEqual(agents.map(() => ({ arrival: EVENTS, status: "idle", last: "claude.stop" })));
  });
});
