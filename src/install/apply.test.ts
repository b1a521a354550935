// A report says only what happened: after a failure that changed nothing, no "to do" speaks of changes not made.
import { describe, expect, it } from "vitest";
import { describeStep, reportOf } from "./apply.ts";
import type { HarnessPlan, Step } from "./plan.ts";

const write = (path: string): Step => ({ kind: "write", path, before: null, after: "{}\n", why: ["add hooks"] });
const plan: HarnessPlan = {
  harness: "claude",
  steps: [write("/h/.claude/settings.json"), write("/h/.claude.json")],
  findings: [],
  todo: ["Restart running Claude Code sessions: they read hooks and MCP servers when they start."],
};

describe("reportOf", () => {
  it("keeps the to-do list when a step was done, or planned", () => {
    expect(reportOf(plan, [describeStep(plan.steps[0] as Step, "done"), describeStep(plan.steps[1] as Step, "failed", "x")]).todo).toEqual(
      plan.todo,
    );
    expect(
      reportOf(
        plan,
        plan.steps.map((step) => describeStep(step, "planned")),
      ).todo,
    ).toEqual(plan.todo);
  });

  it("drops it after a failure that changed nothing", () => {
    const report = reportOf(plan, [
      describeStep(plan.steps[0] as Step, "failed", "x: read-only file system (EROFS)"),
      describeStep(plan.steps[1] as Step, "not-run"),
    ]);
    expect(report).toMatchObject({ ok: false, changed: false, todo: [] });
  });
});
