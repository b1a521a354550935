// The focus service's decisions, with a recording backend: what it refuses, which backend it asks, how outcomes map to
// states. The backends themselves are tested in backends/ (unit) and test/live/ (real terminals).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { done, failed, registerBackend, skipped, type BackendOutcome, type TerminalBackend } from "../../backends/contract.ts";
import { focusSession, focusedAtAll, stateOf } from "./service.ts";
import { canonicalId, digestOf } from "../core/identity.ts";
import { ensureStateDirs } from "../store/paths.ts";
import type { SessionRecord, Terminal } from "../core/schema.ts";
import { readSeen } from "../fleet/seen.ts";
import { writeRecord } from "../store/records.ts";

let sandbox: Sandbox;
let sessionsDir: string;
let asked: string[];
let outcome: BackendOutcome;

const backend: TerminalBackend<string> = {
  id: "fake",
  displayName: "fake terminal",
  detect: (terminal) => terminal.env.FAKE_TARGET,
  describe: (target) => `fake ${target}`,
  focus: async (target) => {
    asked.push(target);
    return outcome;
  },
};
const never: TerminalBackend<string> = { ...backend, id: "never", detect: () => undefined };

function put(
  session: string,
  pid: number | null,
  extra: Partial<SessionRecord> = {},
  terminal: Terminal = { env: { FAKE_TARGET: session } },
): string {
  const id = canonicalId("claude", session, `pid:${pid}`);
  const now = new Date().toISOString();
  writeRecord(sessionsDir, digestOf(id) as string, {
    schema_version: 1,
    canonical_id: id,
    harness: "claude",
    session_id: session,
    instance_id: `pid:${pid}`,
    identity: pid === null ? "unresolved" : "process",
    pid,
    process_start: pid === null ? null : `linux:boot:${pid}00`,
    cwd: `/work/${session}`,
    status: "waiting",
    detail: "",
    tool: "",
    sequence: null,
    arrival_sequence: 1,
    last_event: "claude.permission-request",
    created_at: now,
    updated_at: now,
    status_changed_at: now,
    terminal,
    ...extra,
  });
  return id;
}

const focus = (query: string, listed: { pid: number; name: string }[] = []) =>
  focusSession(query, {
    stateDir: sandbox.stateDir,
    processes: fakeProcessSource([100, 200, 300, 4242].map((pid) => fakeProcess(pid, 1, "claude"))),
    listProcesses: async () => listed.map((proc) => ({ ...proc, ppid: 1, cmd: proc.name })),
    backends: [registerBackend(never), registerBackend(backend)],
    env: {},
  });

beforeEach(() => {
  sandbox = makeSandbox();
  sessionsDir = ensureStateDirs(sandbox.stateDir).sessionsDir;
  asked = [];
  outcome = { located: true, target: "fake", selection: done("selected"), activation: done("shown") };
});
afterEach(() => sandbox.cleanup());

describe("focusSession", () => {
  it("asks the first backend that recognises the recorded terminal, and marks the session seen", async () => {
    const id = put("alpha", 100);
    expect(await focus("alpha")).toMatchObject({ state: "complete", backend: "fake", session: { id } });
    expect(asked).toEqual(["alpha"]);
    expect(readSeen(sandbox.stateDir)[id]).toBeDefined();
  });

  it.each([
    ["stale: the process is gone", () => put("gone", 999), "gone", /stale: process 999 is gone/],
    ["ended", () => put("over", 100, { status: "ended" }), "over", /has ended/],
    ["unresolved identity", () => put("unknown", null), "unknown", /never identified/],
    [
      "Codex shared daemon",
      () => put("shared", 100, {}, { env: {}, unprovable: "Codex CLI shared daemon" }),
      "shared",
      /no provable terminal target: Codex CLI shared daemon/,
    ],
    [
      "no terminal a backend knows",
      () => put("desktop", 100, {}, { env: { TERM_PROGRAM: "vscode" } }),
      "desktop",
      /no terminal target recorded/,
    ],
  ])("refuses %s as unavailable, without asking a backend", async (_name, setup, query, detail) => {
    setup();
    const result = await focus(query);
    expect(result.state).toBe("unavailable");
    expect(result.detail).toMatch(detail);
    expect(asked).toEqual([]);
  });

  it("focuses a discovered process through the terminal in its environment, and only looks for processes when no record matches", async () => {
    put("alpha", 100);
    const tmuxBackend: TerminalBackend<string> = { ...backend, id: "panes", detect: (terminal) => terminal.env.TMUX_PANE };
    const environs: Record<number, Record<string, string>> = { 4242: { TMUX: "/tmp/t,1,0", TMUX_PANE: "%9", FAKE_TARGET: "x" } };
    const discovered = (pid: number) =>
      focusSession(String(pid), {
        stateDir: sandbox.stateDir,
        processes: fakeProcessSource([fakeProcess(4242, 1, "claude"), fakeProcess(4343, 1, "claude")]),
        listProcesses: async () => [4242, 4343].map((p) => ({ pid: p, ppid: 1, name: "claude", cmd: "claude" })),
        backends: [registerBackend(never), registerBackend(tmuxBackend)],
        environOf: async (p) => environs[p],
        env: {},
      });
    expect(await discovered(4242)).toMatchObject({
      state: "complete",
      backend: "panes",
      detail: expect.stringContaining("the terminal in the environment of process 4242"),
    });
    // Only allowlisted terminal variables are taken from the environment (FAKE_TARGET is not one).
    expect(asked).toEqual(["%9"]);
    expect((await discovered(4343)).detail).toMatch(/discovered process without hook events: neither process 4343 nor its ancestors/);
    expect((await focus("alpha", [{ pid: 4242, name: "claude" }])).state).toBe("complete");
  });

  it("never guesses: not-found and ambiguous list nothing or the candidates", async () => {
    put("same-a", 100);
    put("same-b", 200);
    expect(await focus("nothing")).toMatchObject({ state: "not-found", candidates: [] });
    const ambiguous = await focus("same");
    expect(ambiguous.state).toBe("ambiguous");
    expect(ambiguous.candidates.map((candidate) => candidate.cwd).sort()).toEqual(["/work/same-a", "/work/same-b"]);
    expect(asked).toEqual([]);
  });

  it("prefers the live session when a directory name is shared with an ended one", async () => {
    put("app", 100, { cwd: "/old/app", status: "ended" });
    put("app-new", 200, { cwd: "/new/app" });
    expect(await focus("app")).toMatchObject({ state: "complete", session: { cwd: "/new/app" } });
  });
});

describe("a session under a shared daemon (unprovable terminal)", () => {
  const SESSION = "01a23065-2acd-7ab2-a4c9-7c4f1e19742b";
  const unprovable = "Codex CLI shared daemon: hooks run with the environment of whichever UI started it";

  function putDaemonSession(): string {
    const id = canonicalId("codex", SESSION, "pid:100");
    const now = new Date().toISOString();
    writeRecord(sessionsDir, digestOf(id) as string, {
      schema_version: 1,
      canonical_id: id,
      harness: "codex",
      session_id: SESSION,
      instance_id: "pid:100",
      identity: "process",
      pid: 100,
      process_start: "linux:boot:10000",
      cwd: "/work/daemon",
      status: "idle",
      detail: "",
      tool: "",
      sequence: null,
      arrival_sequence: 1,
      last_event: "codex.stop",
      created_at: now,
      updated_at: now,
      status_changed_at: now,
      terminal: { env: {}, unprovable },
    });
    return id;
  }

  const focusUnder = (uiArgs: string[]) => {
    const rows = [
      fakeProcess(100, 1, "codex", ["codex", "app-server", "--managed-daemon"]),
      fakeProcess(300, 1, "codex", ["codex", ...uiArgs]),
    ];
    return focusSession(SESSION.slice(0, 8), {
      stateDir: sandbox.stateDir,
      processes: fakeProcessSource(rows),
      listProcesses: async () => rows.map((row) => ({ pid: row.pid, ppid: row.ppid, name: row.comm, cmd: row.argv.join(" ") })),
      // The UI's environment, read now: only the allowlisted terminal variables count (HOME is dropped).
      environOf: async (pid) => (pid === 300 ? { TMUX_PANE: "%3", HOME: "/root" } : undefined),
      backends: [registerBackend({ ...backend, id: "pane", detect: (terminal) => terminal.env.TMUX_PANE })],
      env: {},
    });
  };

  it("focuses the terminal of the UI its harness finds from exact evidence, read at focus time", async () => {
    const id = putDaemonSession();
    const result = await focusUnder(["resume", SESSION]);
    expect(result).toMatchObject({ state: "complete", backend: "pane", session: { id, pid: 100 } });
    expect(result.detail).toContain(`the terminal of Codex UI process 300 runs \`codex resume ${SESSION}\``);
    expect(asked).toEqual(["%3"]);
  });

  it("stays unavailable, with the harness's reason, when no UI can be tied to the session", async () => {
    putDaemonSession();
    const result = await focusUnder([]);
    expect(result).toMatchObject({ state: "unavailable" });
    expect(result.detail).toMatch(new RegExp(`^no provable terminal target: ${unprovable}; no running Codex UI names this session`));
    expect(asked).toEqual([]);
  });
});

describe("states", () => {
  it.each([
    [{ located: true, selection: done("s"), activation: done("a") }, "complete"],
    [{ located: true, selection: done("s"), activation: skipped("no client") }, "partial"],
    [{ located: true, selection: failed("s"), activation: done("a") }, "partial"],
    [{ located: false, selection: done("s"), activation: done("a") }, "partial"],
    [{ located: true, selection: failed("s"), activation: failed("a") }, "failed"],
    [{ located: false, selection: failed("s"), activation: skipped("a"), unavailable: "remote control off" }, "unavailable"],
  ] as const)("%j -> %s", (result, state) => {
    expect(stateOf(result)).toBe(state);
  });

  it("focusedAtAll is true when one operation succeeded", async () => {
    put("alpha", 100);
    outcome = { located: true, target: "fake", selection: done("selected"), activation: failed("not raised") };
    const result = await focus("alpha");
    expect(result.state).toBe("partial");
    expect(focusedAtAll(result)).toBe(true);
  });
});
