// Claude Code 2.1.332's own statements, from real captures (fixtures/transcript-interrupted.jsonl: a held reply and
// then a tool call, each ended by Esc; fixtures/session-state-*.json: <config>/sessions/<pid>.json while busy and idle).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { UsageFacts } from "../../core/usage-facts.ts";
import { stated } from "./stated.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const SESSION = "64b94903-22ef-4f6c-899c-87be1ef87b9b";
const subject = { sessionId: SESSION, pid: 7355, processStart: "linux:boot:273069" };
const lines = readFileSync(join(FIXTURES, "transcript-interrupted.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as unknown);
const state = (name: string) => JSON.parse(readFileSync(join(FIXTURES, `session-state-${name}.json`), "utf8")) as Record<string, unknown>;

describe("Claude Code's transcript", () => {
  it("states an interruption on exactly the line Claude wrote for Esc during a tool call", () => {
    const facts = lines.map((line) => stated.interpretLine(line, subject));
    expect(facts.filter(Boolean)).toEqual([
      { status: "idle", event: "interrupted", detail: expect.stringContaining("interrupted"), at: "2026-12-01T06:48:33.386Z" },
    ]);
    expect(facts.at(-1)).toBeDefined();
  });

  it("keeps to its own session, and ignores prompts that merely quote the marker", () => {
    const interrupted = lines.at(-1);
    expect(stated.interpretLine(interrupted, { ...subject, sessionId: "other" })).toBeUndefined();
    const quoting = { ...(lines[0] as object), message: { role: "user", content: "why did it say [Request interrupted by user]?" } };
    expect(stated.interpretLine(quoting, subject)).toBeUndefined();
    expect(stated.interpretLine({ ...(interrupted as object), timestamp: "yesterday" }, subject)).toBeUndefined();
    expect(stated.interpretLine("[Request interrupted by user]", subject)).toBeUndefined();
  });

  it("every line that can state something carries a mention the prefilter keeps", () => {
    const stating = lines.filter((line) => stated.interpretLine(line, subject));
    for (const line of stating) expect(stated.lineMentions.some((mention) => JSON.stringify(line).includes(mention))).toBe(true);
  });
});

describe("Claude Code's per-process session state", () => {
  const { processState } = stated;

  it("lives in <config>/sessions/<pid>.json, beside the config's projects/ directory", () => {
    expect(processState.path("/home/user/.claude/projects/-home-user-project/s.jsonl", 7355)).toBe("/home/user/.claude/sessions/7355.json");
    expect(processState.path("/somewhere/else/s.jsonl", 7355)).toBeUndefined();
  });

  it("states idle for the exact process and session, with the time Claude wrote it", () => {
    expect(processState.interpret(state("idle"), subject)).toEqual({
      status: "idle",
      event: "state-idle",
      detail: expect.any(String),
      at: new Date(1796107713358).toISOString(),
    });
    expect(processState.interpret(state("busy"), subject)).toBeUndefined();
  });

  it("states nothing for another pid, another session, or an earlier process that had the same pid", () => {
    expect(processState.interpret(state("idle"), { ...subject, pid: 7356 })).toBeUndefined();
    expect(processState.interpret(state("idle"), { ...subject, sessionId: "other" })).toBeUndefined();
    expect(processState.interpret(state("idle"), { ...subject, processStart: "linux:boot:1273069" })).toBeUndefined();
    expect(processState.interpret(state("idle"), { ...subject, processStart: null })).toBeUndefined();
    expect(processState.interpret({ ...state("idle"), statusUpdatedAt: "soon" }, subject)).toBeUndefined();
  });
});

describe("Claude Code's transcript: usage (fixtures/transcript-limit.jsonl, captured live on the synthetic provider)", () => {
  // One session: a reply from Sonnet, `/compact`, a reply from Opus (`--model` on resume), then a 429 with the unified
  // rate-limit headers of a subscription. The user, assistant and compact_boundary lines of the real transcript.
  const limitSubject = { sessionId: "3d073e8a-e8f6-4786-b6e4-273d7c041ed6", pid: 1, processStart: "t" };
  const limitLines = readFileSync(join(FIXTURES, "transcript-limit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);
  const read = (values: readonly unknown[], facts: UsageFacts = {}) =>
    values.reduce<UsageFacts>((known, line) => stated.readUsage(line, limitSubject, known, true), facts);

  it("the model that answered last, the context its request carried, tokens per message, the compaction, the limit's reset", () => {
    const facts = read(limitLines);
    expect(facts.model?.id).toBe("claude-opus-5-5");
    expect(facts.context).toMatchObject({ used: 10 });
    expect(facts.context?.window).toBeUndefined(); // the transcript never states the window
    expect(facts.tokens).toEqual({ input: 20, output: 10, cache_read: 0, cache_write: 0, complete: true });
    expect(facts.compacted).toMatchObject({ trigger: "manual", pre_tokens: 15 });
    // The failed call's line (model <synthetic>) is no model that answered, and its usage counts nothing.
    expect(facts.limit).toEqual({ resets_at: "2026-12-07T02:42:52.000Z", window: "five_hour", status: 429, at: expect.any(String) });
  });

  it("counts a message once however often its lines are read again, and says so when its start was never read", () => {
    const once = read(limitLines);
    expect(read(limitLines, once).tokens).toEqual(once.tokens);
    const late = limitLines.reduce<UsageFacts>((known, line) => stated.readUsage(line, limitSubject, known, false), {});
    expect(late.tokens?.complete).toBe(false);
  });

  it("every line that states usage carries a mention the prefilter keeps; other sessions' lines state nothing", () => {
    const raw = readFileSync(join(FIXTURES, "transcript-limit.jsonl"), "utf8").trim().split("\n");
    const stating = raw.filter((_, index) => Object.keys(read([limitLines[index]])).length > 0);
    expect(stating).toHaveLength(4); // two replies, the compaction, the failed call
    for (const line of stating)
      expect(
        stated.usageMentions.some((mention) => line.includes(mention)),
        line.slice(0, 80),
      ).toBe(true);
    expect(read(limitLines.map((line) => ({ ...(line as object), sessionId: "other" })))).toEqual({});
  });
});
