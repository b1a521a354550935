// Copilot CLI 1.0.102's session events for a turn cancelled with Ctrl+C (fixtures/events-abort.jsonl, the lines of a
// live run against the synthetic provider): no hook fires, the events file says abort, user_initiated.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copilotHarness } from "./harness.ts";
import { stated } from "./stated.ts";

const lines = readFileSync(join(import.meta.dirname, "fixtures", "events-abort.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Record<string, unknown>);
const subject = { sessionId: "64ebd37e-5407-4b02-8cdd-2e86bc42649f", pid: 1, processStart: null };

describe("Copilot CLI's session events", () => {
  it("state the user's interruption on the abort line, and nothing on the others", () => {
    const facts = lines.map((line) => stated.interpretLine(line, subject, {}));
    expect(facts.slice(0, -1).every((fact) => fact === undefined)).toBe(true);
    expect(facts.at(-1)).toEqual({
      status: "idle",
      event: "interrupted",
      detail: "interrupted by the user (stated in Copilot CLI's session events)",
      at: "2026-12-07T05:23:19.150Z",
    });
    expect(
      lines.every((line) => stated.lineMentions.some((mention) => JSON.stringify(line).includes(mention)) === (line.type === "abort")),
    ).toBe(true);
  });

  it("another reason is said as it is, bounded and without control characters; a line without a time states nothing", () => {
    const abort = lines.at(-1) as Record<string, unknown>;
    const fact = stated.interpretLine({ ...abort, data: { reason: `\u001b[31m${"x".repeat(500)}` } }, subject, {});
    expect(fact?.detail).toMatch(/^turn aborted \(.*x+…?\)$/);
    expect(fact?.detail).not.toContain("\u001b");
    expect(Buffer.byteLength(fact?.detail ?? "")).toBeLessThanOrEqual(80);
    expect(stated.interpretLine({ ...abort, timestamp: undefined }, subject, {})).toBeUndefined();
  });
});

describe("Copilot CLI's events file", () => {
  it("is found under $COPILOT_HOME (else ~/.copilot) by the session's id, and never outside it", () => {
    const of = copilotHarness.transcriptPathOf;
    expect(of("64ebd37e-5407", { HOME: "/home/u" })).toBe("/home/u/.copilot/session-state/64ebd37e-5407/events.jsonl");
    expect(of("abc", { HOME: "/home/u", COPILOT_HOME: "/c" })).toBe("/c/session-state/abc/events.jsonl");
    expect(of("../../etc", { HOME: "/home/u" })).toBeUndefined();
    expect(of("a/b", { HOME: "/home/u" })).toBeUndefined();
  });
});
