// Racing session switches: one harness process starting many sessions at once (a burst of /clear, /new or resume, or
// session starts delivered out of order). One process runs one session at a time, so however they race, exactly one of
// its sessions is shown live: the one that started last. The hooks end the others on disk; under load a hook may reach
// its bound before it does, and then the readers show the earlier sessions ended from the start-order evidence
// (fleet/queued.ts) until a later event writes it. So the invariant is checked in what every reader shows, and on disk
// the one property no load may break: the session that started last is never the one ended.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { effectiveRecords } from "../../src/fleet/queued.ts";
import { compareStarts } from "../../src/core/spawn-order.ts";
import type { SessionRecord } from "../../src/core/schema.ts";
import { sessionsDirOf } from "../../src/store/paths.ts";
import { listRecords } from "../../src/store/records.ts";
import { startFakeHarness, type FakeHarness, type HookRun } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { max, ms, printFigures } from "./support.ts";

const SWITCHES = 12;
const ROUNDS = 5;

let sandbox: Sandbox;
const harnesses: FakeHarness[] = [];
const runs: HookRun[] = [];
type Round = { shown: number; onDisk: number; latestEndedOnDisk: boolean };
const rounds: Record<"claude" | "pi", Round[]> = { claude: [], pi: [] };

/** What readers show and what the hooks wrote, for the records of one process (and one emitter instance). */
function roundOf(pid: number, instance?: string): Round {
  const sessionsDir = sessionsDirOf(sandbox.stateDir);
  const mine = (record: SessionRecord) => record.pid === pid && (instance === undefined || record.instance_id === instance);
  const listing = listRecords(sessionsDir);
  const onDisk = listing.records.map(({ record }) => record).filter(mine);
  const latest = onDisk.reduce((a, b) => (compareStarts(a.start_order, b.start_order) >= 0 ? a : b));
  return {
    shown: effectiveRecords(sessionsDir, listing, Date.now()).filter(({ record }) => mine(record) && record.status !== "ended").length,
    onDisk: onDisk.filter((record) => record.status !== "ended").length,
    latestEndedOnDisk: latest.status === "ended",
  };
}

beforeAll(async () => {
  sandbox = makeSandbox("tongs-adv-switch-");
  const pi = await startFakeHarness("pi", sandbox);
  harnesses.push(pi);
  for (let round = 0; round < ROUNDS; round++) {
    const claude = await startFakeHarness("claude", sandbox);
    harnesses.push(claude);
    runs.push(
      ...(await claude.emitMany(
        "session-start",
        "claude",
        Array.from({ length: SWITCHES }, (_, index) => ({ session_id: `r${round}-s${index}`, cwd: "/w" })),
      )),
    );
    rounds.claude.push(roundOf(claude.pid));
    const instance = `instance-${round}`;
    // The bridge numbers every event of its process in order (pi-bridge/index.js); the deliveries race.
    const payload = (index: number) =>
      JSON.stringify({
        schema_version: 1,
        event_id: "pi.session-start",
        session_id: `r${round}-s${index}`,
        instance_id: instance,
        sequence: round * SWITCHES + index + 1,
        pid: pi.pid,
        cwd: "/w",
        status: "started",
        detail: "",
        tool: "",
      });
    runs.push(
      ...(await pi.emitMany(
        "fleet-event",
        "pi",
        Array.from({ length: SWITCHES }, (_, index) => payload(index)),
        { shell: false },
      )),
    );
    rounds.pi.push(roundOf(pi.pid, instance));
  }
  printFigures("racing session switches", {
    rounds: ROUNDS,
    "session starts at once per round and harness": SWITCHES,
    "Claude Code: live sessions shown per round": rounds.claude.map((round) => round.shown).join(", "),
    "Claude Code: live on disk per round (hooks' own ends)": rounds.claude.map((round) => round.onDisk).join(", "),
    "Pi: live sessions shown per round": rounds.pi.map((round) => round.shown).join(", "),
    "Pi: live on disk per round (hooks' own ends)": rounds.pi.map((round) => round.onDisk).join(", "),
    "max hook wall time": ms(max(runs.map((run) => run.ms))),
  });
}, 120_000);
afterAll(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  sandbox.cleanup();
});

describe("racing session switches", () => {
  it(`every one of the ${ROUNDS * SWITCHES * 2} racing session starts exits 0, silent`, () => {
    expect(runs).toHaveLength(ROUNDS * SWITCHES * 2);
    expect(runs.filter((run) => run.code !== 0 || run.stdout !== "" || run.stderr !== "")).toEqual([]);
  });

  // Was a defect (each racing start ended only the session the pointer named when it read it, so several stayed live):
  // the instance pointer now has its own lock and the later-spawned session wins (src/store/transaction.ts).
  for (const harness of ["claude", "pi"] as const) {
    const name = harness === "claude" ? "Claude Code" : "Pi";
    it(`${name}: exactly one session of the ${harness === "claude" ? "process" : "instance"} is shown live after each burst`, () => {
      expect(rounds[harness].map((round) => round.shown)).toEqual(Array.from({ length: ROUNDS }, () => 1));
    });

    it(`${name}: the hooks never end the session that started last`, () => {
      expect(rounds[harness].map((round) => round.latestEndedOnDisk)).toEqual(Array.from({ length: ROUNDS }, () => false));
    });
  }
});
