// Codex 0.171.0's rollout for a turn whose provider answered HTTP 400 (fixtures/rollout-api-error.jsonl, a real
// capture against the synthetic provider's FAILAPI marker): no hook fires, the rollout says task_complete with an error.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
