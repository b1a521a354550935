// The host watch with the fake ssh of test/fake-hosts.ts (mocked transport; the host's answer is our own CLI's
// `notify changes --json` on its own sandboxed records, after a real sh split of the quoted command line). Delivery is
// a recorder: which sessions would be told, never a real channel. Live: e2e/hosts.e2e.test.ts (a webhook on A).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeMachine, fakeSsh, type FakeMachine, type SshCall } from "../../test/fake-hosts.ts";
import type { Sandbox } from "../../test/sandbox.ts";
import { canonicalId, digestOf } from "../core/identity.ts";
import type { SessionRecord } from "../core/schema.ts";
import type { CliContext } from "../cli/context.ts";
import { addHost } from "../hosts/edit.ts";
import { readRecord, recordPath, writeRecord } from "../store/records.ts";
import { sessionsDirOf } from "../store/paths.ts";
import { DEFAULT_CONFIG, type NotifyConfig } from "./config.ts";
import type { ClickOutcome, PendingClick } from "./contract.ts";
import type { BatchSession } from "./deliver.ts";
import { createHostWatch, MAX_BACKOFF_MS, type HostWatchWorld } from "./hosts-watch.ts";
import { CHANGES_WORDS, changeReaders } from "../hosts/changes.ts";
import { mute } from "./mute.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const POLL_MS = DEFAULT_CONFIG.hostsPollMs;
const sandboxes: Sandbox[] = [];
afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));

let now: number;
let calls: SshCall[];
let told: BatchSession[][];
let logged: Record<string, unknown>[];
let here: CliContext;
let config: NotifyConfig;
beforeEach(() => {
  now = NOW;
  calls = [];
  told = [];
  logged = [];
  config = DEFAULT_CONFIG;
  here = fakeMachine(sandboxes, [], NOW);
  expect(addHost(here.env, "devbox", "me@devbox").ok).toBe(true);
});

function world(devbox: FakeMachine): HostWatchWorld {
  const context = { ...here, sshRun: fakeSsh({ "me@devbox": devbox }, calls) };
  return {
    stateDir: here.stateDir,
    hosts: () => changeReaders(context),
    config: () => config,
    deliver: async (sessions) => {
      told.push([...sessions]);
      return { notified: sessions.map((session) => session.id), suppressed: [], deliveries: [] };
    },
    focus: async (query) => `focused ${query}`,
    log: (entry) => void logged.push(entry),
    now: () => now,
  };
}

/** Put the host's session into `status`, entered at `changedAt`. */
function setStatus(machine: CliContext, session: string, pid: number, status: SessionRecord["status"], changedAt: string): void {
  const id = canonicalId("claude", session, `pid:${pid}`);
  const path = recordPath(sessionsDirOf(machine.stateDir), digestOf(id) as string);
  const read = readRecord(path);
  if (read.kind !== "record") throw new Error(`no record for ${session}: ${JSON.stringify(read)}`);
  writeRecord(sessionsDirOf(machine.stateDir), digestOf(id) as string, { ...read.record, status, status_changed_at: changedAt });
}

const idOf = (session: string, pid: number) => canonicalId("claude", session, `pid:${pid}`);

/** What the host itself answers to `notify changes --json`. */
async function changesOf(machine: CliContext): Promise<{ sessions: Record<string, unknown>[] }> {
  const { runCli } = await import("../cli/run.ts");
  let out = "";
  const io = { stdout: (text: string) => void (out += text), stderr: () => undefined, color: false, columns: 200 };
  expect(await runCli(["notify", "changes", "--json"], machine, io)).toBe(0);
  return JSON.parse(out) as { sessions: Record<string, unknown>[] };
}

describe("the host watch", () => {
  it("asks the host for its changes and tells a waiting session once, named HOST:ID; a state that does not notify is not told", async () => {
    const devbox = fakeMachine(
      sandboxes,
      [
        ["asks", 200, "waiting"],
        ["works", 201, "running"],
        ["done", 202, "idle"],
      ],
      NOW,
    );
    const watch = createHostWatch(world({ context: devbox }));
    await watch.round();
    expect(calls.map((call) => call.words)).toEqual([["tongs-agents", ...CHANGES_WORDS]]);
    expect(told).toHaveLength(1);
    expect(told[0]).toEqual([
      expect.objectContaining({
        id: `devbox:${idOf("asks", 200)}`,
        status: "waiting",
        host: { name: "devbox", id: idOf("asks", 200) },
        onHost: expect.stringMatching(/^on devbox: /),
        cwd: "/work/asks",
      }),
    ]);
    // Idle does not notify by default: handled (marked) and said why.
    expect(JSON.stringify(logged)).toContain("idle does not notify (config)");

    // Every read after: the same change is not told again; not before the poll interval is a read at all.
    await watch.round();
    expect(calls).toHaveLength(1);
    now += POLL_MS;
    await watch.round();
    expect(calls).toHaveLength(2);
    expect(told).toHaveLength(1);

    // A new change of the same session (it ran, then asked again) is told once more.
    setStatus(devbox, "asks", 200, "running", new Date(now - 5000).toISOString());
    now += POLL_MS;
    await watch.round();
    setStatus(devbox, "asks", 200, "waiting", new Date(now - 1000).toISOString());
    now += POLL_MS;
    await watch.round();
    expect(told).toHaveLength(2);
    expect(told[1]?.map((session) => session.id)).toEqual([`devbox:${idOf("asks", 200)}`]);
  });

  it("a change already handled is not told again after a restart (the marks are files), nor when muted, and is marked then", async () => {
    const devbox = fakeMachine(sandboxes, [["asks", 200, "waiting"]], NOW);
    await createHostWatch(world({ context: devbox })).round();
    expect(told).toHaveLength(1);
    await createHostWatch(world({ context: devbox })).round();
    expect(told).toHaveLength(1);

    setStatus(devbox, "asks", 200, "waiting", new Date(NOW - 1000).toISOString());
    expect(mute(here.stateDir, now, 60_000).ok).toBe(true);
    await createHostWatch(world({ context: devbox })).round();
    expect(told).toHaveLength(1);
    expect(JSON.stringify(logged)).toContain("muted");
  });

  it("does not tell a session the host says the user looks at", async () => {
    const devbox = fakeMachine(sandboxes, [["asks", 200, "waiting"]], NOW);
    const answer = await changesOf(devbox);
    expect(answer.sessions).toHaveLength(1);
    expect(answer.sessions[0]).toMatchObject({ on_screen: false, status: "waiting" });
    // The host's own answer, its survey's verdict turned to "on screen" (a focused client shows the pane there).
    const why = "client /dev/pts/3 shows %1 in a focused terminal window";
    const seen = { sessions: answer.sessions.map((row) => ({ ...row, on_screen: true, on_screen_why: why })) };
    await createHostWatch(world({ context: devbox, answer: { ok: true, code: 0, stdout: JSON.stringify(seen), stderr: "" } })).round();
    expect(told).toEqual([]);
    expect(logged).toContainEqual(expect.objectContaining({ outcome: "nothing", skipped: [expect.stringContaining(why)] }));
  });

  it("leaves out rows that do not fit, claim another host or are not in a state that notifies, and counts them", async () => {
    const devbox = fakeMachine(sandboxes, [["asks", 200, "waiting"]], NOW);
    const row = (await changesOf(devbox)).sessions[0] as Record<string, unknown>;
    const hostile = { sessions: [{ ...row, host: "other" }, { ...row, on_screen: "no" }, { ...row, status: "running" }, "x"] };
    await createHostWatch(world({ context: devbox, answer: { ok: true, code: 0, stdout: JSON.stringify(hostile), stderr: "" } })).round();
    expect(told).toEqual([]);
    expect(JSON.stringify(logged)).toContain("4 row(s) from devbox did not fit and were left out");
  });

  it("an unreachable host is asked again later and later (at most every 5 minutes), then as usual once it answers", async () => {
    const reachable = fakeMachine(sandboxes, [["asks", 200, "waiting"]], NOW);
    let down = true;
    const machine: FakeMachine = {
      context: reachable,
      get unreachable() {
        return down ? "ssh: connect to host devbox port 22: No route to host" : undefined;
      },
    };
    const watch = createHostWatch(world(machine));
    const readsAt: number[] = [];
    for (let step = 0; step < 60 * 60; step++) {
      const before = calls.length;
      await watch.round();
      if (calls.length > before) readsAt.push(now - NOW);
      now += 1000;
    }
    const gaps = readsAt.slice(1).map((at, index) => at - (readsAt[index] as number));
    expect(gaps.slice(0, 4)).toEqual([2 * POLL_MS, 4 * POLL_MS, 8 * POLL_MS, 16 * POLL_MS].map((ms) => Math.min(ms, MAX_BACKOFF_MS)));
    expect(Math.max(...gaps)).toBe(MAX_BACKOFF_MS);
    // Said once, not at every read.
    expect(logged.filter((entry) => entry.outcome === "host")).toEqual([
      expect.objectContaining({ host: "devbox", state: expect.stringMatching(/^unreachable: ssh: connect to host devbox port 22/) }),
    ]);
    expect(told).toEqual([]);
    down = false;
    now += MAX_BACKOFF_MS;
    await watch.round();
    expect(told).toHaveLength(1);
    expect(logged.at(-2)).toMatchObject({ outcome: "host", host: "devbox", state: "ok" });
  });

  it("never has two reads of one host in flight: a round while it hangs does not ask again", async () => {
    const devbox = fakeMachine(sandboxes, [["asks", 200, "waiting"]], NOW);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hanging = world({ context: devbox });
    const context = { ...here, sshRun: fakeSsh({ "me@devbox": { context: devbox } }, calls) };
    let started = 0;
    const slow = async (...args: Parameters<NonNullable<typeof context.sshRun>>) => {
      started++;
      await held;
      return fakeSsh({ "me@devbox": { context: devbox } }, calls)(...args);
    };
    const watch = createHostWatch({ ...hanging, hosts: () => changeReaders({ ...context, sshRun: slow }) });
    const first = watch.round();
    for (let step = 0; step < 5; step++) {
      now += POLL_MS;
      await watch.round();
    }
    expect(started).toBe(1);
    release();
    await first;
    expect(calls).toHaveLength(1);
    expect(told).toHaveLength(1);
  });

  it("a click on the host's notification focuses HOST:ID; it is withdrawn once the host's next read shows the session moved on", async () => {
    const devbox = fakeMachine(
      sandboxes,
      [
        ["asks", 200, "waiting"],
        ["fails", 201, "error"],
      ],
      NOW,
    );
    const focused: string[] = [];
    const waits: { stillWanted: () => boolean; resolve: (outcome: ClickOutcome) => void }[] = [];
    const closed: number[] = [];
    const base = world({ context: devbox });
    const watch = createHostWatch({
      ...base,
      deliver: async (sessions) => {
        told.push([...sessions]);
        const click: PendingClick = {
          wait: ({ stillWanted }) => new Promise((resolve) => waits.push({ stillWanted, resolve })),
          close: async () => void closed.push(waits.length),
        };
        const notice = { title: "", lines: [], oneLine: "", urgency: "critical" as const, sessions: [] };
        return { notified: sessions.map((session) => session.id), suppressed: [], deliveries: [], pending: { click, notice } };
      },
      focus: async (query) => {
        focused.push(query);
        return "complete";
      },
    });
    await watch.round();
    expect(told[0]?.map((session) => session.id)).toEqual([`devbox:${idOf("asks", 200)}`, `devbox:${idOf("fails", 201)}`]);
    const [pending] = waits;
    expect(pending?.stillWanted()).toBe(true);
    // One session moved on: still wanted for the other; both moved on: no longer.
    setStatus(devbox, "asks", 200, "running", new Date(NOW - 1000).toISOString());
    now += POLL_MS;
    await watch.round();
    expect(pending?.stillWanted()).toBe(true);
    setStatus(devbox, "fails", 201, "running", new Date(NOW - 1000).toISOString());
    now += POLL_MS;
    await watch.round();
    expect(pending?.stillWanted()).toBe(false);
    pending?.resolve({ kind: "clicked", sessionId: `devbox:${idOf("fails", 201)}` });
    await vi.waitFor(() => expect(focused).toEqual([`devbox:${idOf("fails", 201)}`]));
    expect(closed).toEqual([1]);
    expect(logged.at(-1)).toMatchObject({ outcome: "click", result: "clicked", focus: "complete" });
  });
});
