// Two session starts racing in one harness process (two quick `/clear`s): real hook processes, spawned by a fake
// harness process in the order a harness spawns them, through `/bin/sh -c` as Claude Code does and directly as Codex
// does. Whatever order the two hooks finish in, the later-started session must be the live one, and only it
// (docs/contract.md, "Session switching"). Before the instance pointer had its own lock and spawn-order evidence,
// about half of the trials left two live sessions.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, processInstanceId } from "../src/core/identity.ts";
import { linuxProcessSource } from "../src/core/proc.ts";
import { loadFleet } from "../src/fleet/sessions.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { readRecord, recordPath } from "../src/store/records.ts";
import { startFakeHarness, type FakeHarness } from "./processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

const TRIALS = 30;

let sandbox: Sandbox;
let harness: FakeHarness | undefined;
beforeEach(() => {
  sandbox = makeSandbox();
  sandbox.env.TONGS_AGENTS_DEBUG = "1";
});
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  sandbox.cleanup();
});

describe("two session starts racing in one process", { timeout: 240_000 }, () => {
  it.each([
    ["claude", true],
    ["codex", false],
  ] as const)("%s: the later-started session is the only live one, in every trial", async (agent, shell) => {
    harness = await startFakeHarness(agent, sandbox);
    const pid = harness.pid;
    const token = (await linuxProcessSource().basics(pid))?.startToken as string;
    const instance = processInstanceId(pid, token);
    const sessionsDir = sessionsDirOf(sandbox.stateDir);
    const statusOf = (session: string) => {
      const read = readRecord(recordPath(sessionsDir, digestOf(canonicalId(agent, session, instance)) as string));
      return read.kind === "record" ? read.record.status : read.kind;
    };
    const failures: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const [earlier, later] = [`t${trial}-a`, `t${trial}-b`];
      // Spawned in this order, at once: the harness started `earlier` first (one /clear), then `later` (the next).
      const runs = await harness.emitMany(
        "session-start",
        agent,
        [
          { session_id: earlier, cwd: "/w" },
          { session_id: later, cwd: "/w" },
        ],
        { shell },
      );
      for (const run of runs) expect(run).toMatchObject({ code: 0, stdout: "", stderr: "" });
      const states = { [earlier]: statusOf(earlier), [later]: statusOf(later) };
      if (states[earlier] !== "ended" || states[later] !== "started") failures.push(`trial ${trial}: ${JSON.stringify(states)}`);
    }
    expect(failures).toEqual([]);
    // Readers agree: one live session for this process, the last one started.
    const fleet = await loadFleet({ stateDir: sandbox.stateDir, processes: linuxProcessSource() }, { discover: false });
    const live = fleet.sessions.filter((session) => session.pid === pid && session.status !== "ended");
    expect(live.map((session) => session.session_id)).toEqual([`t${TRIALS - 1}-b`]);
  });
});
