import { describe, expect, it } from "vitest";
import { claudeHarness } from "./claude/harness.ts";
import { checkVersion, versionNumber } from "./versions.ts";

describe("version drift", () => {
  it.each([
    ["2.1.332 (Claude Code)", "2.1.332"],
    ["codex-cli 0.171.0", "0.171.0"],
    ["GitHub Copilot CLI 1.0.102.", "1.0.102"],
    ["1.6.0", "1.6.0"],
    ["kimi, version 2.1.0-beta.3", "2.1.0-beta.3"],
    ["v22.23.3", "22.23.3"],
    ["build 1.2.3.4", undefined],
    ["no version here", undefined],
  ])("reads the version in %j", (printed, version) => {
    expect(versionNumber(printed)).toBe(version);
  });

  it("is proven only for a version the live suites pinned", () => {
    expect(checkVersion(claudeHarness, "2.1.332 (Claude Code)")).toEqual({ status: "proven", version: "2.1.332", proven_on: ["2.1.332"] });
    expect(checkVersion(claudeHarness, "2.1.333 (Claude Code)")).toMatchObject({ status: "unproven", version: "2.1.333" });
    expect(checkVersion(claudeHarness, null)).toMatchObject({ status: "unknown" });
  });
});
