// kill -9 at random points: of hook processes writing one record, and of a process rewriting a config file through
// the installer's writer. A reader must only ever see a whole old or a whole new file; what a killed writer leaves
// (temp files, a lock) must not stop the next writer.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { canonicalId, digestOf } from "../../src/core/identity.ts";
import { sessionsDirOf } from "../../src/store/paths.ts";
import { STALE_LOCK_MS } from "../../src/store/record-lock.ts";
import { readRecord, recordPath } from "../../src/store/records.ts";
import { HOOK_BIN, ROOT, runHook, startFakeHarness, type FakeHarness } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { bundleFixture, checkState, ms, pool, printFigures } from "./support.ts";

const HOOK_KILLS = 200;
const WRITER_KILLS = 30;

let sandbox: Sandbox;
let pi: FakeHarness;
beforeEach(async () => {
  sandbox = makeSandbox("tongs-adv-kill-");
  pi = await startFakeHarness("pi", sandbox);
});
afterEach(async () => {
  await pi.stop();
  sandbox.cleanup();
});

const sleep = (time: number) => new Promise((resolve) => setTimeout(resolve, time));

/** Start the hook with its payload and SIGKILL it `delay` ms later (or let it finish first). */
function hookKilledAfter(payload: string, delay: number): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK_BIN, "fleet-event", "--agent", "pi"], {
      env: sandbox.env,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(payload);
    const timer = setTimeout(() => child.kill("SIGKILL"), delay);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ killed: signal === "SIGKILL", code });
    });
  });
}

describe("kill -9", () => {
  it(`${HOOK_KILLS} hook processes killed at random points of their write: the record is always whole, and the next event applies`, async () => {
    const path = recordPath(sessionsDirOf(sandbox.stateDir), digestOf(canonicalId("pi", "k", "i")) as string);
    const payload = (sequence: number) =>
      JSON.stringify({
        schema_version: 1,
        event_id: "pi.agent-start",
        session_id: "k",
        instance_id: "i",
        sequence,
        pid: pi.pid,
        cwd: "/w",
        status: "running",
        detail: `event ${sequence}`,
        tool: "",
      });
    let reads = 0;
    const torn: string[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const read = readRecord(path);
        reads++;
        if (read.kind === "invalid") torn.push(`${read.reason}: ${read.detail}`);
        await sleep(1);
      }
    })();
    // Delays spread over a hook's whole life on this machine now (start-up, read, lock, write, exit), measured first.
    const calibration: number[] = [];
    for (let sequence = 1; sequence <= 5; sequence++)
      calibration.push((await runHook(["fleet-event", "--agent", "pi"], payload(sequence), sandbox.env)).ms);
    const lifetime = Math.max(...calibration);
    const results = await pool(
      Array.from({ length: HOOK_KILLS }, (_, index) => index + 6),
      4,
      (sequence) => hookKilledAfter(payload(sequence), Math.random() * lifetime * 1.1),
    );
    reading = false;
    await reader;
    const state = checkState(sandbox.stateDir);
    const sessions = sessionsDirOf(sandbox.stateDir);
    const leftovers = readdirSync(sessions).filter((name) => name.endsWith(".tmp") || name.endsWith(".lock"));
    // A lock left by a killed holder is taken over once stale; then the next event applies.
    await sleep(STALE_LOCK_MS + 200);
    const final = HOOK_KILLS + 6;
    const last = await runHook(["fleet-event", "--agent", "pi"], payload(final), sandbox.env);
    const record = readRecord(path);
    printFigures(`kill -9 of ${HOOK_KILLS} hook processes`, {
      "a hook's whole life here (calibration, longest of 5)": ms(lifetime),
      killed: results.filter((result) => result.killed).length,
      "finished before the kill": results.filter((result) => !result.killed).length,
      // More events applied than hooks finished: kills that landed after the write, before the exit.
      "events applied, the next one included": record.kind === "record" ? record.record.arrival_sequence : record.kind,
      "reads during the kills": reads,
      "torn or invalid reads": torn.length,
      "temp files and locks left behind": leftovers.length,
      "record after the next event": record.kind === "record" ? `sequence ${record.record.sequence}` : record.kind,
      "next event wall time": ms(last.ms),
    });
    expect(torn).toEqual([]);
    expect(state.problems).toEqual([]);
    expect(results.filter((result) => !result.killed && result.code !== 0)).toEqual([]);
    expect([last.code, last.stdout, last.stderr]).toEqual([0, "", ""]);
    expect(record).toMatchObject({ kind: "record", record: { sequence: final } });
  });

  it(`a config writer killed at ${WRITER_KILLS} random points: the file is always one whole version, and writing goes on`, async () => {
    const dir = join(sandbox.home, ".claude");
    const path = join(dir, "settings.json");
    const [first, second] = [join(sandbox.root, "first.json"), join(sandbox.root, "second.json")];
    // Large enough that a write takes a while: a kill lands inside one more often.
    const texts = [`{"a": "${"x".repeat(400_000)}"}\n`, `{"b": "${"y".repeat(300_000)}"}\n`];
    writeFileSync(first, texts[0] as string);
    writeFileSync(second, texts[1] as string);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, texts[0] as string);
    const seen = new Set<string>();
    const writer = bundleFixture(join(ROOT, "test/adversarial/fixtures/config-writer.ts"));
    onTestFinished(() => rmSync(writer.dir, { recursive: true, force: true }));
    for (let round = 0; round < WRITER_KILLS; round++) {
      const child = spawn(process.execPath, [writer.path, path, first, second], { stdio: ["ignore", "pipe", "inherit"] });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const line = await lines.next();
      expect(line.value, "the writer's first write").toBe("written");
      const closed = new Promise((resolve) => child.on("close", resolve));
      await sleep(Math.random() * 60);
      child.kill("SIGKILL");
      await closed;
      const text = readFileSync(path, "utf8");
      seen.add(text === texts[0] ? "first" : text === texts[1] ? "second" : `torn (${text.length} bytes)`);
    }
    const leftovers = readdirSync(dir).filter((name) => name !== "settings.json");
    printFigures(`kill -9 of a config writer, ${WRITER_KILLS} times`, {
      kills: WRITER_KILLS,
      "versions seen after a kill": [...seen].sort().join(", "),
      "temp files left by the last kill (*.tmp)": leftovers.length,
    });
    expect([...seen].filter((version) => version.startsWith("torn"))).toEqual([]);
    // Each write sweeps what killed writers left; only the last kill's files can remain.
    expect(leftovers.filter((name) => !name.endsWith(".tmp"))).toEqual([]);
    expect(leftovers.length).toBeLessThanOrEqual(3);
  });
});
