import { describe, expect, it } from "vitest";
import { geminiHarness } from "./gemini/harness.ts";
import { reportLines } from "./reports.ts";

describe("a harness's report lines", () => {
  it("say what it reports by source, what it cannot, and what is untested on the proven versions", () => {
    const lines = reportLines({ ...geminiHarness, reports: { ...geminiHarness.reports, ended: { by: "untested", why: "not tried" } } });
    expect(lines).toContain(
      "  reports: session start, a prompt running, a tool running, waiting for the user, turn done (idle) (its hooks)",
    );
    expect(lines).toContain(
      "  cannot report: a failed turn (error): no hook states a failed turn: a provider error ends the turn idle, never error",
    );
    expect(lines.at(-1)).toBe("  untested: session end: not tried");
  });
});
