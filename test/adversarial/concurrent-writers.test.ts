// 64 hook processes at once on one record, and 64 at once on 64 records, while listings run (CLI processes and
// in-process reads): every event applied or left queued for the next holder and then applied, never lost; every read
// whole; every hook silent and bounded.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, processInstanceId } from "../../src/core/identity.ts";
import { sessionsDirOf } from "../../src/store/paths.ts";
import { linuxProcessSource } from "../../src/core/proc.ts";
import { listRecords, readRecord, recordPath } from "../../src/store/records.ts";
import { CLI_BIN, runHook, runNode, startFakeHarness, type FakeHarness, type ProcessResult } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { checkState, max, ms, printFigures } from "./support.ts";

const WRITERS = 64;
const WALL_BOUND_MS = 8000;

let sandbox: Sandbox;
const harnesses: FakeHarness[] = [];
beforeEach(() => {
  sandbox = makeSandbox("tongs-adv-writers-");
  sandbox.env.TONGS_AGENTS_DEBUG = "1";
});
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  sandbox.cleanup();
});

async function harness(name: string): Promise<FakeHarness> {
  const started = await startFakeHarness(name, sandbox);
  harnesses.push(started);
  return started;
}

/** Listings while the writers run: CLI processes one after another, and in-process reads of the sessions dir. */
function startListings(): { stop(): Promise<{ cli: number; reads: number; problems: string[] }> } {
  let running = true;
  const problems: string[] = [];
  let cli = 0;
  let reads = 0;
  const sessions = sessionsDirOf(sandbox.stateDir);
  const cliLoop = (async () => {
    while (running) {
      const run = await runNode(CLI_BIN, ["list", "--json", "--all"], { env: sandbox.env });
      cli++;
      try {
        const printed = JSON.parse(run.stdout) as { invalid: unknown[] };
        if (run.code !== 0 || printed.invalid.length > 0)
          problems.push(`list exit ${run.code}: ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 300)}`);
      } catch {
        problems.push(`list printed no JSON (exit ${run.code}): ${run.stderr.slice(0, 300)}`);
      }
    }
  })();
  const readLoop = (async () => {
    while (running) {
      const listing = listRecords(sessions);
      reads++;
      for (const invalid of listing.invalid) problems.push(`read ${invalid.digest}: ${invalid.reason}`);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  })();
  return {
    async stop() {
      running = false;
      await Promise.all([cliLoop, readLoop]);
      return { cli, reads, problems };
    },
  };
}

function failedRuns(runs: readonly ProcessResult[]): ProcessResult[] {
  return runs.filter((run) => run.code !== 0 || run.stdout !== "" || run.stderr !== "" || run.ms > WALL_BOUND_MS);
}

/** Each hook's outcome from the debug log: written, deferred (left queued), skipped or anything else. */
function outcomes(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of readFileSync(join(sandbox.stateDir, "hook.log"), "utf8").trim().split("\n")) {
    const entry = JSON.parse(line) as { action?: string; outcome?: string; stage?: string };
    const key = entry.action ?? entry.outcome ?? entry.stage ?? "unknown";
    // Anything but written or deferred fails the test: show its log line (its detail says why).
    if (key !== "written" && key !== "deferred") process.stdout.write(`[adversarial] unexpected hook outcome: ${line}\n`);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe("concurrent writers", () => {
  it(`${WRITERS} hooks at once on one record, with listings running: every event counted once`, async () => {
    const claude = await harness("claude");
    const info = await linuxProcessSource().basics(claude.pid);
    const path = recordPath(
      sessionsDirOf(sandbox.stateDir),
      digestOf(canonicalId("claude", "busy", processInstanceId(claude.pid, info?.startToken as string))) as string,
    );
    await claude.emit("session-start", "claude", { session_id: "busy", cwd: "/w" });
    const listings = startListings();
    const started = performance.now();
    const runs = await claude.emitMany(
      "tool-use",
      "claude",
      Array.from({ length: WRITERS }, (_, index) => ({ session_id: "busy", cwd: "/w", tool_name: `T${index}` })),
    );
    const burst = performance.now() - started;
    const listed = await listings.stop();
    // The next event applies whatever the burst left queued, first.
    const last = await claude.emit("stop", "claude", { session_id: "busy", cwd: "/w" });
    const record = readRecord(path);
    const counts = outcomes();
    printFigures(`${WRITERS} writers on one record`, {
      "hooks run": runs.length + 2,
      ...Object.fromEntries([...counts].sort()),
      "events in the record (arrival_sequence)": record.kind === "record" ? record.record.arrival_sequence : record.kind,
      expected: WRITERS + 2,
      "max hook wall time": ms(max([...runs, last].map((run) => run.ms))),
      "burst wall time": ms(burst),
      "CLI listings during the burst": listed.cli,
      "in-process reads during the burst": listed.reads,
      "invalid reads": listed.problems.length,
    });
    expect(failedRuns([...runs, last])).toEqual([]);
    expect(listed.problems).toEqual([]);
    expect([...counts.keys()].filter((key) => key !== "written" && key !== "deferred")).toEqual([]);
    expect(record).toMatchObject({ kind: "record", record: { arrival_sequence: WRITERS + 2, status: "idle" } });
    expect(checkState(sandbox.stateDir).problems).toEqual([]);
  });

  it(`${WRITERS} hooks at once on ${WRITERS} records, twice, with listings running: every record has every event`, async () => {
    const pi = await harness("pi");
    const payload = (index: number, sequence: number, event: string, status: string) =>
      JSON.stringify({
        schema_version: 1,
        event_id: `pi.${event}`,
        session_id: `s-${index}`,
        instance_id: `instance-${index}`,
        sequence,
        pid: pi.pid,
        cwd: `/work/${index}`,
        status,
        detail: "",
        tool: "",
      });
    // Through the Pi stand-in, which spawns them one after another and feeds each its payload at once, as a harness does
    // (a test process spawning 64 children in one synchronous loop would hold every payload back until the last spawn).
    const send = (sequence: number, event: string, status: string) =>
      pi.emitMany(
        "fleet-event",
        "pi",
        Array.from({ length: WRITERS }, (_, index) => payload(index, sequence, event, status)),
        { shell: false },
      );
    const listings = startListings();
    const started = performance.now();
    const first = await send(1, "session-start", "started");
    const second = await send(2, "agent-start", "running");
    const burst = performance.now() - started;
    const listed = await listings.stop();
    // One more event per record, one record at a time: it applies anything still queued before itself.
    const third: ProcessResult[] = [];
    for (let index = 0; index < WRITERS; index++)
      third.push(await runHook(["fleet-event", "--agent", "pi"], payload(index, 3, "agent-settled", "idle"), sandbox.env));
    const sessions = sessionsDirOf(sandbox.stateDir);
    const records = Array.from({ length: WRITERS }, (_, index) =>
      readRecord(recordPath(sessions, digestOf(canonicalId("pi", `s-${index}`, `instance-${index}`)) as string)),
    );
    const complete = records.filter(
      (read) => read.kind === "record" && read.record.arrival_sequence === 3 && read.record.sequence === 3 && read.record.status === "idle",
    ).length;
    const counts = outcomes();
    printFigures(`${WRITERS} writers on ${WRITERS} records`, {
      "hooks run": first.length + second.length + third.length,
      ...Object.fromEntries([...counts].sort()),
      "records with all 3 events": `${complete} of ${WRITERS}`,
      "max hook wall time": ms(max([...first, ...second, ...third].map((run) => run.ms))),
      "two bursts wall time": ms(burst),
      "CLI listings during the bursts": listed.cli,
      "in-process reads during the bursts": listed.reads,
      "invalid reads": listed.problems.length,
    });
    expect(failedRuns([...first, ...second, ...third])).toEqual([]);
    expect(listed.problems).toEqual([]);
    expect([...counts.keys()].filter((key) => key !== "written" && key !== "deferred")).toEqual([]);
    expect(complete).toBe(WRITERS);
    expect(checkState(sandbox.stateDir).problems).toEqual([]);
  });
});
