// The held hook's logic against a real state dir and a real Claude Code state file, with a fake process table: when it
// holds at all, what it answers, and that it ends (printing nothing) as soon as the wait closes any other way. The
// request files go through the CLI's own side (request-channel.ts), so the claim-or-withdraw handover is the real one.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../test/records.ts";
import { HOLDS_DIR, liveHold } from "../answer/holds.ts";
import type { Reply } from "../answer/replies.ts";
import { deliverRequest, heldHook } from "../answer/request-channel.ts";
import { waitIdOf } from "../answer/wait-id.ts";
import { canonicalId, digestOf, processInstanceId } from "../core/identity.ts";
import type { ProcessBasics, ProcessSource } from "../core/proc.ts";
import type { PendingWait } from "../core/schema.ts";
import { ensureStateDirs } from "../store/paths.ts";
import { writeRecord } from "../store/records.ts";
import { CLAUDE_HOOKS } from "../harnesses/claude/install.ts";
import {
  decisionFor,
  HOLD_ALIAS,
  HOLD_TIMEOUT_S,
  holdPermission,
  parseHoldInput,
  replyOf,
  type HoldEnd,
  type HoldInput,
  type HoldWorld,
} from "./claude-hold.ts";

const HOOK = 100;
const SHELL = 50;
const CLAUDE = 40;
const CLAUDE_START = "boot:4242";
const CANONICAL = canonicalId("claude", "s1", processInstanceId(CLAUDE, CLAUDE_START));

let root: string;
let stateDir: string;
let config: string;
let claudeArgv: string[];
let alive: Set<number>;
let pipedClaude: boolean;

const basics = (pid: number, ppid: number, comm: string, startToken: string): ProcessBasics => ({
  pid,
  ppid,
  comm,
  exe: undefined,
  startToken,
  tty: undefined,
});
const processes: ProcessSource = {
  basics: async (pid) =>
    !alive.has(pid)
      ? undefined
      : pid === HOOK
        ? basics(HOOK, SHELL, "node", "boot:9")
        : pid === SHELL
          ? basics(SHELL, CLAUDE, "sh", "boot:8")
          : pid === CLAUDE
            ? basics(CLAUDE, 1, "claude", CLAUDE_START)
            : undefined,
  argv: async (pid) => (pid === CLAUDE ? claudeArgv : pid === SHELL ? ["/bin/sh", "-c", "node hook"] : ["node"]),
};

const world = (overrides: Partial<HoldWorld> = {}): HoldWorld => ({
  env: { CLAUDE_CONFIG_DIR: config },
  home: root,
  stateDir,
  ppid: SHELL,
  pid: HOOK,
  processes,
  now: Date.now,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  readsTerminal: (pid) => pid === CLAUDE && !pipedClaude,
  settleMs: 300,
  ...overrides,
});

/** Claude Code's own session state file for its process. */
function claudeState(status: string, since = 1_000) {
  writeFileSync(
    join(config, "sessions", `${CLAUDE}.json`),
    JSON.stringify({ pid: CLAUDE, sessionId: "s1", procStart: "4242", status, statusUpdatedAt: since, kind: "interactive" }),
  );
}

function waitOpen(tool = "Bash", since = "2026-12-07T14:00:00.000Z", before: PendingWait[] = []): string {
  const wait: PendingWait = {
    kind: "permission",
    tool,
    detail: `permission: ${tool}`,
    candidates: [],
    since,
    event: "claude.permission-request",
  };
  const record = sampleRecord({
    canonical_id: CANONICAL,
    session_id: "s1",
    instance_id: processInstanceId(CLAUDE, CLAUDE_START),
    pid: CLAUDE,
    process_start: CLAUDE_START,
    status: "waiting",
    pending: [...before, wait],
  });
  writeRecord(ensureStateDirs(stateDir).sessionsDir, digestOf(CANONICAL) as string, record);
  return waitIdOf(record, wait);
}

const input = (fields: Partial<HoldInput> = {}): HoldInput => ({
  session_id: "s1",
  tool_name: "Bash",
  tool_input: { command: "touch approved" },
  permission_suggestions: [
    { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination: "localSettings" },
  ],
  ...fields,
});

const registrations = () => (existsSync(join(stateDir, HOLDS_DIR)) ? readdirSync(join(stateDir, HOLDS_DIR)) : []);

/** Start holding; resolves once the hold registered (or returns its end when it never did). */
async function startHold(request: HoldInput = input(), overrides: Partial<HoldWorld> = {}) {
  const stop = { stopped: false };
  const ended = holdPermission(request, world(overrides), stop);
  let done: HoldEnd | undefined;
  void ended.then((end) => (done = end));
  for (let waited = 0; registrations().length === 0 && done === undefined && waited < 3000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const hold = await liveHold(stateDir, CANONICAL, waitOpenId, processes);
  return { ended, stop, hold, done: () => done };
}

const ask = (hold: { id: string }, reply: Reply, fields: Record<string, unknown> = {}, claimMs = 2500) =>
  deliverRequest(stateDir, heldHook(hold.id), { session: CANONICAL, wait: waitOpenId, reply, ...fields }, { claimMs });

let waitOpenId: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "claude-hold-"));
  stateDir = join(root, "state");
  config = join(root, "claude-config");
  mkdirSync(join(config, "sessions"), { recursive: true });
  claudeArgv = ["claude"];
  alive = new Set([HOOK, SHELL, CLAUDE]);
  pipedClaude = false;
  claudeState("waiting");
  waitOpenId = waitOpen();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("when the hook holds at all (never where it would keep a dialog from the user)", () => {
  it.each([
    ["claude -p", () => void (claudeArgv = ["claude", "-p", "do it"]), input(), "claude runs headless (-p)"],
    ["claude --print", () => void (claudeArgv = ["claude", "--print"]), input(), "claude runs headless (-p)"],
    ["a subagent's request", () => {}, input({ agent_id: "a1" }), "a subagent's request"],
    ["claude reads no terminal (driven through pipes)", () => void (pipedClaude = true), input(), "claude reads no terminal"],
    ["Claude Code's state says busy", () => claudeState("busy"), input(), "not waiting"],
    [
      "the state file is an earlier process's (same PID, another start)",
      () =>
        writeFileSync(
          join(config, "sessions", `${CLAUDE}.json`),
          JSON.stringify({ pid: CLAUDE, sessionId: "s1", procStart: "1", status: "waiting" }),
        ),
      input(),
      "not waiting",
    ],
    ["no claude above the hook", () => alive.delete(CLAUDE), input(), "no claude process"],
    ["the record shows no wait for this tool", () => {}, input({ tool_name: "Edit" }), "the record shows no wait"],
    [
      "two requests open at once (which dialog is which is not known)",
      () =>
        void waitOpen("Bash", "2026-12-07T14:00:01.000Z", [
          {
            kind: "permission",
            tool: "Bash",
            detail: "",
            candidates: [],
            since: "2026-12-07T14:00:00.000Z",
            event: "claude.permission-request",
          },
        ]),
      input(),
      "the record shows no wait",
    ],
  ])("%s: ends at once, registers nothing, prints nothing", async (_name, arrange, request, why) => {
    arrange();
    const end = await holdPermission(request, world());
    expect(end).toMatchObject({ answered: false });
    expect(end.answered === false && end.why).toContain(why);
    expect(existsSync(join(stateDir, HOLDS_DIR))).toBe(false);
  });

  it("is the entry the installer writes: alias and timeout, beside the state event's", () => {
    const entries = CLAUDE_HOOKS.filter((spec) => spec.event === "PermissionRequest");
    expect(entries).toEqual([
      { event: "PermissionRequest", alias: "permission-request", timeout: 5 },
      { event: "PermissionRequest", alias: HOLD_ALIAS, timeout: HOLD_TIMEOUT_S, holds: true },
    ]);
  });

  it("reads only Claude Code's PermissionRequest input", () => {
    expect(parseHoldInput({ hook_event_name: "PreToolUse", session_id: "s1", tool_name: "Bash" })).toBeUndefined();
    expect(parseHoldInput({ hook_event_name: "PermissionRequest", session_id: "", tool_name: "Bash" })).toBeUndefined();
    expect(parseHoldInput({ hook_event_name: "PermissionRequest", session_id: "s1", tool_name: "Bash", tool_input: "x" })).toEqual({
      session_id: "s1",
      tool_name: "Bash",
      tool_input: {},
      permission_suggestions: [],
    });
  });
});

describe("answering through the held hook", () => {
  it("allow: the request is claimed, the decision printed, the registration gone", async () => {
    const { ended, hold } = await startHold();
    expect(hold).toMatchObject({ pid: HOOK, session: CANONICAL, wait: waitOpenId });
    expect(JSON.stringify(hold)).not.toContain("touch approved");
    expect(await ask(hold!, { kind: "allow" })).toEqual({
      ok: true,
      outcome: { ok: true, sent: "allow", option: { number: 1, label: "Yes" } },
    });
    const end = await ended;
    expect(end.answered && JSON.parse(end.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    expect(registrations()).toEqual([]);
    expect(readdirSync(join(stateDir, "answer-requests"))).toEqual([]);
  });

  it("deny with a message, and always with Claude Code's own suggested rules", async () => {
    expect(decisionFor(input(), { kind: "deny", message: "not now" })).toMatchObject({
      ok: true,
      decision: { behavior: "deny", message: "not now" },
    });
    expect(decisionFor(input(), { kind: "always" })).toMatchObject({
      ok: true,
      decision: { behavior: "allow", updatedPermissions: input().permission_suggestions },
      option: { number: 2 },
    });
    expect(decisionFor(input({ permission_suggestions: [] }), { kind: "always" })).toMatchObject({ ok: false });
    expect(decisionFor(input(), { kind: "session" })).toMatchObject({ ok: false });
    expect(decisionFor(input(), { kind: "choice", number: 3 })).toMatchObject({ ok: true, decision: { behavior: "deny" } });
    const { ended, hold } = await startHold();
    expect(await ask(hold!, { kind: "deny", message: "not now" })).toMatchObject({ ok: true, outcome: { ok: true, sent: "deny" } });
    const end = await ended;
    expect(end.answered && JSON.parse(end.stdout).hookSpecificOutput.decision).toEqual({ behavior: "deny", message: "not now" });
  });

  it("a question (AskUserQuestion): the answer goes in updatedInput.answers, keyed by the question", () => {
    const question = input({
      tool_name: "AskUserQuestion",
      tool_input: {
        questions: [{ question: "Which colour?", header: "Colour", options: [{ label: "Blue" }, { label: "Green" }], multiSelect: false }],
      },
    });
    expect(decisionFor(question, { kind: "choice", label: "gr" })).toMatchObject({
      ok: true,
      decision: { behavior: "allow", updatedInput: { answers: { "Which colour?": "Green" } } },
      option: { number: 2, label: "Green" },
    });
    expect(decisionFor(question, { kind: "text", text: "Red" })).toMatchObject({
      ok: true,
      decision: { updatedInput: { answers: { "Which colour?": "Red" } } },
    });
    expect(decisionFor(question, { kind: "choice", number: 3 })).toMatchObject({ ok: false });
  });

  it("a reply it does not offer, a stale request, one for another wait: refused with nothing printed, and it keeps holding", async () => {
    const { ended, hold, done, stop } = await startHold(input({ permission_suggestions: [] }));
    expect(await ask(hold!, { kind: "always" })).toMatchObject({ ok: true, outcome: { ok: false, reason: "not-offered" } });
    expect(await ask(hold!, { kind: "allow" }, { at: new Date(Date.now() - 60_000).toISOString() })).toMatchObject({
      ok: true,
      outcome: { ok: false, reason: "stale" },
    });
    expect(await ask(hold!, { kind: "allow" }, { wait: "0123456789ab" })).toMatchObject({
      ok: true,
      outcome: { ok: false, reason: "moved-on" },
    });
    expect(done()).toBeUndefined();
    stop.stopped = true;
    expect(await ended).toEqual({ answered: false, why: "stopped" });
    expect(registrations()).toEqual([]);
  });

  it("a reply that is not one `answer` writes is refused, not guessed at", async () => {
    expect(replyOf({ kind: "deny", message: 7 })).toEqual({ kind: "deny" });
    expect(replyOf({ kind: "choice" })).toBeUndefined();
    expect(replyOf({ kind: "yes" })).toBeUndefined();
    const { ended, hold, stop } = await startHold();
    expect(await ask(hold!, { kind: "maybe" } as unknown as Reply)).toMatchObject({
      ok: true,
      outcome: { ok: false, reason: "not-offered" },
    });
    stop.stopped = true;
    expect((await ended).answered).toBe(false);
  });

  it("a request not claimed in time is withdrawn and never applied", async () => {
    const delivered = await deliverRequest(
      stateDir,
      heldHook("hold-0000000000000000"),
      { session: CANONICAL, wait: waitOpenId, reply: { kind: "allow" } },
      { claimMs: 200 },
    );
    expect(delivered).toMatchObject({ ok: false, sent: false });
    expect(readdirSync(join(stateDir, "answer-requests"))).toEqual([]);
  });
});

describe("ending as soon as the wait closes any other way (printing nothing)", () => {
  it.each([
    ["answered in the pane: Claude Code's state leaves waiting", () => claudeState("busy", 2_000), "session state moved on (busy)"],
    ["another dialog: the state is waiting again, since later", () => claudeState("waiting", 3_000), "session state moved on (waiting)"],
    ["the record's wait moved on", () => void waitOpen("Bash", "2026-12-07T14:05:00.000Z"), "the record's wait moved on"],
    ["Claude Code exited (its state file removed)", () => rmSync(join(config, "sessions", `${CLAUDE}.json`)), "it exited"],
    ["Claude Code was killed (its state file left saying waiting)", () => alive.delete(CLAUDE), "Claude Code is gone"],
  ])("%s", async (_name, close, why) => {
    const { ended, hold } = await startHold();
    expect(hold).toBeDefined();
    const closedAt = Date.now();
    close();
    const end = await ended;
    expect(end).toEqual({ answered: false, why: expect.stringContaining(why) });
    // One tick of the hold (100 ms) and a little: not a timed assertion of speed, a bound on "it ended by itself".
    expect(Date.now() - closedAt).toBeLessThan(2_000);
    expect(registrations()).toEqual([]);
  });

  it("a request that arrives after the wait closed is refused as already answered", async () => {
    const { ended, hold } = await startHold(input(), {});
    claudeState("busy", 2_000);
    const delivered = await ask(hold!, { kind: "allow" }, {}, 2500);
    // Either the hold saw the state first and ended (the request is withdrawn: nothing sent), or it claimed the request
    // and refused it: never an answer.
    expect(delivered.ok ? delivered.outcome : delivered).toMatchObject({ ok: false });
    expect((await ended).answered).toBe(false);
  });

  it("its own bound", async () => {
    const { ended } = await startHold(input(), { holdMs: 300 });
    expect(await ended).toEqual({ answered: false, why: "its bound passed" });
  });
});
