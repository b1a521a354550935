// Codex 0.171.0's rollout for a turn whose provider answered HTTP 400 (fixtures/rollout-api-error.jsonl, a real
// capture against the synthetic provider's FAILAPI marker): no hook fires, the rollout says task_complete with an error.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { UsageFacts } from "../../core/usage-facts.ts";
import { stated } from "./stated.ts";

const lines = readFileSync(join(import.meta.dirname, "fixtures", "rollout-api-error.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Record<string, unknown>);
const subject = { sessionId: "01a2305c-f430-7af0-a81d-69356cb0bf00", pid: 1, processStart: null };

describe("Codex's rollout", () => {
  it("states an error on the failed turn's task_complete line, and nothing on the others", () => {
    const facts = lines.map((line) => stated.interpretLine(line, subject, {}));
    expect(facts.slice(0, -1).every((fact) => fact === undefined)).toBe(true);
    expect(facts.at(-1)).toEqual({
      status: "error",
      event: "turn-failed",
      detail: expect.stringContaining("synthetic failure requested by FAILAPI"),
      at: "2026-12-01T06:48:48.162Z",
    });
  });

  it("a turn that completed without an error states nothing here (the Stop hook reports it)", () => {
    const failed = lines.at(-1) as { payload: Record<string, unknown> };
    expect(stated.interpretLine({ ...failed, payload: { ...failed.payload, error: null } }, subject, {})).toBeUndefined();
  });

  it("bounds the detail and strips control characters", () => {
    const failed = lines.at(-1) as { payload: Record<string, unknown> };
    const fact = stated.interpretLine(
      { ...failed, payload: { ...failed.payload, error: { message: `\u001b[31m${"x".repeat(5000)}` } } },
      subject,
      {},
    );
    expect(Buffer.byteLength(fact?.detail ?? "")).toBeLessThanOrEqual(512);
    expect(fact?.detail).not.toContain("\u001b");
  });
});

describe("Codex's rollout: limits and usage (fixtures/rollout-usage-limit.jsonl, captured live on the synthetic provider)", () => {
  // Four turns of one session through `codex exec` and `exec resume`: a reply; LIMITHIT (429 usage_limit_reached with
  // Codex's window headers); a reply with `-m fake-model-2`; QUOTAHIT (429 insufficient_quota, no reset stated).
  const rollout = readFileSync(join(import.meta.dirname, "fixtures", "rollout-usage-limit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);
  /** The outcomes and the facts as a reader sees them, line by line (as fleet/stated.ts reads them). */
  const readAll = (values: readonly unknown[]) => {
    let facts: UsageFacts = {};
    const outcomes = [];
    const seen: UsageFacts[] = [];
    for (const line of values) {
      const outcome = stated.interpretLine(line, subject, facts);
      if (outcome) outcomes.push(outcome);
      facts = stated.readUsage(line, subject, facts);
      seen.push(facts);
    }
    return { outcomes, facts, seen };
  };

  it("a usage limit is a limit, in Codex's words, resetting when the window its token_count states as spent resets", () => {
    const { outcomes } = readAll(rollout);
    expect(outcomes.map((outcome) => outcome.limit)).toEqual([
      {
        kind: "usage_limit",
        stated: "usage_limit_exceeded",
        message: expect.stringMatching(/^You’ve hit your usage limit\. .* try again at 2:43 AM\.$/),
        resets_at: "2026-12-07T02:43:39.000Z",
        window: "primary",
      },
      // insufficient_quota: the same class, no window spent, so no reset is stated.
      { kind: "usage_limit", stated: "usage_limit_exceeded", message: "Quota exceeded. Check your plan and billing details." },
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["error", "error"]);
  });

  it("the model of each turn, the context window and fill, the session's totals, both quota windows", () => {
    const { facts, seen } = readAll(rollout);
    expect(seen.map((known) => known.model?.id).filter((id, index, ids) => id !== ids[index - 1])).toEqual([
      "fake-model",
      "fake-model-2",
      "fake-model",
    ]);
    expect(facts.context).toMatchObject({ used: 15, window: 258400 });
    // Codex's own totals, as its last token_count states them (each `exec resume` process counts from its start).
    expect(facts.tokens).toEqual({ input: 20, output: 10, cache_read: 0, cache_write: 0, complete: true });
    expect(facts.windows?.map(({ name, used_percent, window_minutes }) => ({ name, used_percent, window_minutes }))).toEqual([
      { name: "primary", used_percent: 42, window_minutes: 300 },
      { name: "secondary", used_percent: 40, window_minutes: 10080 },
    ]);
  });
});
