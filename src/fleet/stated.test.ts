// The fleet fills hook gaps from what the harness wrote (stated.ts): records of this test process, transcripts built
// from real captured lines (src/harnesses/<id>/fixtures/), read through loadFleet as list, status and the MCP server do.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeLiveRecord } from "../../test/records.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { digestOf } from "../core/identity.ts";
import { linuxProcessSource } from "../core/proc.ts";
import type { SessionRecord } from "../core/schema.ts";
import { ensureStateDirs } from "../store/paths.ts";
import { readRecord, recordPath } from "../store/records.ts";
import { loadFleet } from "./sessions.ts";

const FIXTURES = join(import.meta.dirname, "..", "harnesses");
const fixtureLines = (harness: string, name: string) =>
  readFileSync(join(FIXTURES, harness, "fixtures", name), "utf8")
    .trim()
    .split("\n");
const CLAUDE_SESSION = "64b94903-22ef-4f6c-899c-87be1ef87b9b";
/** The captured Esc line (last line of the Claude fixture) and Codex's failed task_complete (last of its fixture). */
const interruptedLine = fixtureLines("claude", "transcript-interrupted.jsonl").at(-1) as string;
const failedLine = fixtureLines("codex", "rollout-api-error.jsonl").at(-1) as string;
/** A captured line, restamped: `at` decides whether it comes after the record's last event. */
const stamped = (line: string, at: string) => `${JSON.stringify({ ...JSON.parse(line), timestamp: at })}\n`;

let sandbox: Sandbox;
let config: string;
let transcript: string;
beforeEach(() => {
  sandbox = makeSandbox();
  config = join(sandbox.home, ".claude");
  mkdirSync(join(config, "projects", "-w"), { recursive: true });
  transcript = join(config, "projects", "-w", `${CLAUDE_SESSION}.jsonl`);
  writeFileSync(transcript, fixtureLines("claude", "transcript-interrupted.jsonl").slice(0, 3).join("\n") + "\n");
});
afterEach(() => sandbox.cleanup());

const T_RUNNING = "2026-12-01T06:48:30.000Z";
const AFTER = "2026-12-01T06:48:33.386Z";
const BEFORE = "2026-12-01T06:48:29.000Z";
const NOW = Date.parse("2026-12-01T06:49:00.000Z");

async function running(overrides: Partial<SessionRecord> = {}): Promise<string> {
  return writeLiveRecord(sandbox.stateDir, CLAUDE_SESSION, { env: {} }, "/w", {
    status: "running",
    last_event: "claude.tool-use",
    updated_at: T_RUNNING,
    status_changed_at: T_RUNNING,
    created_at: T_RUNNING,
    transcript_path: transcript,
    ...overrides,
  });
}

async function fleet() {
  return loadFleet({ stateDir: sandbox.stateDir, processes: linuxProcessSource(), now: () => NOW }, { discover: false });
}

function stored(id: string, now = NOW): SessionRecord {
  const read = readRecord(recordPath(ensureStateDirs(sandbox.stateDir).sessionsDir, digestOf(id) as string), now);
  if (read.kind !== "record") throw new Error(`no record: ${read.kind}`);
  return read.record;
}

describe("hook gaps filled from the harness's own files", () => {
  it("Esc in Claude Code: the interruption line written after the last hook ends the turn, once", async () => {
    const id = await running();
    expect((await fleet()).sessions[0]).toMatchObject({ status: "running" });
    appendFileSync(transcript, stamped(interruptedLine, AFTER));
    const shown = (await fleet()).sessions[0];
    expect(shown).toMatchObject({ status: "idle", last_event: "claude.interrupted" });
    const first = stored(id);
    expect(first.arrival_sequence).toBe(2);
    // Read again by another reader: the same line is not counted twice.
    await fleet();
    expect(stored(id)).toEqual(first);
  });

  it("an interruption written before the record's last event changes nothing (a newer turn has begun)", async () => {
    appendFileSync(transcript, stamped(interruptedLine, BEFORE));
    const id = await running();
    await fleet();
    expect(stored(id)).toMatchObject({ status: "running", arrival_sequence: 1 });
  });

  it("a line of another session is ignored", async () => {
    const waiting = await running({ status: "waiting" });
    appendFileSync(transcript, stamped(JSON.stringify({ ...JSON.parse(interruptedLine), sessionId: "someone-else" }), AFTER));
    await fleet();
    expect(stored(waiting)).toMatchObject({ status: "waiting", arrival_sequence: 1 });
  });

  it("a record that is not in a turn is left alone", async () => {
    const idle = await running({ status: "idle", last_event: "claude.stop" });
    appendFileSync(transcript, stamped(interruptedLine, AFTER));
    await fleet();
    expect(stored(idle)).toMatchObject({ status: "idle", last_event: "claude.stop", arrival_sequence: 1 });
  });

  it("Claude's session state: idle for this exact process and session, written after the last hook", async () => {
    const id = await running();
    const me = await linuxProcessSource().basics(process.pid);
    const procStart = me?.startToken.split(":").at(-1);
    const captured = JSON.parse(readFileSync(join(FIXTURES, "claude", "fixtures", "session-state-idle.json"), "utf8")) as Record<
      string,
      unknown
    >;
    mkdirSync(join(config, "sessions"), { recursive: true });
    const statePath = join(config, "sessions", `${process.pid}.json`);
    // Another process that once had this pid: not ours, no change.
    writeFileSync(
      statePath,
      JSON.stringify({ ...captured, pid: process.pid, procStart: `${procStart}1`, statusUpdatedAt: Date.parse(AFTER) }),
    );
    await fleet();
    expect(stored(id)).toMatchObject({ status: "running" });
    writeFileSync(
      statePath,
      JSON.stringify({ ...captured, pid: process.pid, procStart, status: "busy", statusUpdatedAt: Date.parse(AFTER) }),
    );
    await fleet();
    expect(stored(id)).toMatchObject({ status: "running" });
    writeFileSync(statePath, JSON.stringify({ ...captured, pid: process.pid, procStart, statusUpdatedAt: Date.parse(AFTER) }));
    expect((await fleet()).sessions[0]).toMatchObject({ status: "idle", last_event: "claude.state-idle" });
  });

  it("a provider failure under Codex: the rollout's failed turn shows as an error", async () => {
    const rollout = join(sandbox.home, ".codex", "sessions", "rollout-x.jsonl");
    mkdirSync(join(sandbox.home, ".codex", "sessions"), { recursive: true });
    writeFileSync(rollout, fixtureLines("codex", "rollout-api-error.jsonl").slice(0, -1).join("\n") + "\n");
    const id = await writeLiveRecord(sandbox.stateDir, "01a2305c-f430-7af0-a81d-69356cb0bf00", { env: {} }, "/w", {
      harness: "codex",
      status: "running",
      last_event: "codex.prompt-submit",
      updated_at: T_RUNNING,
      status_changed_at: T_RUNNING,
      created_at: T_RUNNING,
      transcript_path: rollout,
    });
    await fleet();
    expect(stored(id)).toMatchObject({ status: "running" });
    appendFileSync(rollout, stamped(failedLine, AFTER));
    expect((await fleet()).sessions[0]).toMatchObject({
      status: "error",
      last_event: "codex.turn-failed",
      detail: expect.stringContaining("FAILAPI"),
    });
  });

  it("a failed turn read before its prompt's event was applied still ends the turn once that event is", async () => {
    const rollout = join(sandbox.home, ".codex", "sessions", "rollout-y.jsonl");
    mkdirSync(join(sandbox.home, ".codex", "sessions"), { recursive: true });
    writeFileSync(rollout, fixtureLines("codex", "rollout-api-error.jsonl").slice(0, -1).join("\n") + "\n");
    const session = "01a2305c-f430-7af0-a81d-69356cb0bf01";
    const codex = (overrides: Partial<SessionRecord>) =>
      writeLiveRecord(sandbox.stateDir, session, { env: {} }, "/w", {
        harness: "codex",
        updated_at: T_RUNNING,
        status_changed_at: T_RUNNING,
        created_at: T_RUNNING,
        transcript_path: rollout,
        ...overrides,
      });
    // The prompt's hook is still queued: the record shows the session started when the failed turn is written.
    const id = await codex({ status: "started", last_event: "codex.session-start" });
    appendFileSync(rollout, stamped(failedLine, AFTER));
    await fleet();
    expect(stored(id)).toMatchObject({ status: "started" });
    await codex({ status: "running", last_event: "codex.prompt-submit" });
    expect((await fleet()).sessions[0]).toMatchObject({ status: "error", last_event: "codex.turn-failed" });
  });

  it("a transcript that is missing or unreadable is no fact", async () => {
    const id = await running({ transcript_path: join(sandbox.root, "gone.jsonl") });
    await fleet();
    expect(stored(id)).toMatchObject({ status: "running" });
  });
});

describe("limits and usage, as list, the picker and MCP show them (live captures: fixtures/*-limit*)", () => {
  const LIVE_NOW = Date.parse("2026-12-07T01:50:00.000Z");
  const liveFleet = (now = LIVE_NOW) =>
    loadFleet({ stateDir: sandbox.stateDir, processes: linuxProcessSource(), now: () => now }, { discover: false });

  it("Codex: a usage limit no hook reports is a limit, with Codex's words and the reset of the window it spent", async () => {
    const rollout = join(sandbox.home, ".codex", "sessions", "rollout-limit.jsonl");
    mkdirSync(join(sandbox.home, ".codex", "sessions"), { recursive: true });
    const lines = fixtureLines("codex", "rollout-usage-limit.jsonl");
    // The first turn, and the second up to its token_count: the limit's task_complete is not written yet.
    writeFileSync(rollout, lines.slice(0, 7).join("\n") + "\n");
    const id = await writeLiveRecord(sandbox.stateDir, "01a24e2b-b787-7ac0-aa98-8f874fca8b1e", { env: {} }, "/w", {
      harness: "codex",
      status: "running",
      last_event: "codex.prompt-submit",
      updated_at: "2026-12-07T01:43:39.000Z",
      status_changed_at: "2026-12-07T01:43:39.000Z",
      created_at: "2026-12-07T01:43:37.000Z",
      transcript_path: rollout,
    });
    const before = (await liveFleet()).sessions[0];
    expect(before).toMatchObject({ status: "running", limit: null, model: "fake-model", context: { used: 15, window: 258400 } });
    expect(before?.quota.map((window) => [window.window, window.used_percent])).toEqual([
      ["primary", 100],
      ["secondary", 40],
    ]);
    appendFileSync(rollout, `${lines[7]}\n`);
    const shown = (await liveFleet()).sessions[0];
    expect(shown).toMatchObject({
      status: "error",
      last_event: "codex.turn-limited",
      limit: {
        kind: "usage_limit",
        stated: "usage_limit_exceeded",
        message: expect.stringContaining("You’ve hit your usage limit."),
        resets_at: "2026-12-07T02:43:39.000Z",
        window: "primary",
        reset_passed: false,
      },
    });
    expect(stored(id, LIVE_NOW).limit?.resets_at).toBe("2026-12-07T02:43:39.000Z");
    // After the reset the row says so, and nothing pretends the agent is working again.
    const later = (await liveFleet(Date.parse("2026-12-07T02:48:39.000Z"))).sessions[0];
    expect(later).toMatchObject({ status: "error", limit: { reset_passed: true } });
  });

  it("Claude Code: the StopFailure's limit takes its reset from the transcript; usage counts once across reader restarts", async () => {
    const session = "3d073e8a-e8f6-4786-b6e4-273d7c041ed6";
    const path = join(config, "projects", "-w", `${session}.jsonl`);
    const lines = fixtureLines("claude", "transcript-limit.jsonl");
    writeFileSync(path, lines.join("\n") + "\n");
    const words = "You've hit your 5-hour limit · resets 2:42am (UTC)";
    await writeLiveRecord(sandbox.stateDir, session, { env: {} }, "/w", {
      status: "error",
      detail: words,
      last_event: "claude.stop-failure",
      updated_at: "2026-12-07T01:43:00.000Z",
      status_changed_at: "2026-12-07T01:43:00.000Z",
      created_at: "2026-12-07T01:42:00.000Z",
      limit: { kind: "rate_limit", stated: "rate_limit", message: words },
      transcript_path: path,
    });
    const shown = (await liveFleet()).sessions[0];
    expect(shown).toMatchObject({
      status: "error",
      limit: { kind: "rate_limit", message: words, resets_at: "2026-12-07T02:42:52.000Z", window: "five_hour", reset_passed: false },
      model: "claude-opus-5-5",
      context: { used: 10, window: null, percent: null },
      tokens: { input: 20, output: 10, complete: true },
    });
    // Each look is a new reader (list, the picker, MCP): the cursor and the facts it keeps make each line count once,
    // and a message's line written again (Claude writes one per content block) adds nothing.
    expect((await liveFleet()).sessions[0]?.tokens).toEqual(shown?.tokens);
    const reply = lines.find((line) => line.includes("claude-opus-5-5")) as string;
    appendFileSync(path, `${reply}\n`);
    expect((await liveFleet()).sessions[0]?.tokens).toEqual(shown?.tokens);
    appendFileSync(path, `${JSON.stringify({ ...JSON.parse(reply), message: { ...JSON.parse(reply).message, id: "msg_next" } })}\n`);
    expect((await liveFleet()).sessions[0]?.tokens).toMatchObject({ input: 30, output: 15 });
  });
});
