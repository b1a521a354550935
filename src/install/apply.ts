// Carry out a plan's steps in order; the first failure stops the rest. Also turns steps into their report form.
import { diffLines } from "./diff.ts";
import { dropEmpty } from "./drop-empty.ts";
import { deleteConfigFile, writeConfigFile } from "./file-edit.ts";
import type { HarnessPlan, HarnessReport, Step, StepReport, StepStatus } from "./plan.ts";
import { isBlocking } from "./plan.ts";
import type { InstallContext } from "./context.ts";

const RUN_TIMEOUT_MS = 120_000;

export function describeStep(step: Step, status: StepStatus, detail?: string): StepReport {
  const extra = detail === undefined ? {} : { detail };
  switch (step.kind) {
    case "write":
      return {
        kind: "write",
        status,
        path: step.path,
        change: step.before === null ? "create" : "modify",
        diff: diffLines(step.before, step.after),
        why: step.why,
        ...extra,
      };
    case "delete":
      return { kind: "delete", status, path: step.path, change: "delete", diff: diffLines(step.before, null), why: step.why, ...extra };
    case "run":
      return { kind: "run", status, command: step.argv, why: [step.why], ...extra };
    case "drop-empty":
      return {
        kind: "drop-empty",
        status,
        path: step.path,
        change: "modify",
        diff: step.keys.map((key) => `- ${JSON.stringify(key)}: (if left empty)`),
        why: step.why,
        ...extra,
      };
  }
}

export async function runStep(step: Step, world: InstallContext): Promise<{ ok: true } | { ok: false; detail: string }> {
  switch (step.kind) {
    case "write":
      return writeConfigFile(step.path, step.before, step.after);
    case "delete":
      return deleteConfigFile(step.path, step.before);
    case "drop-empty":
      return dropEmpty(step.path, step.keys, step.deleteIfEmpty === true);
    case "run": {
      const [file, ...args] = step.argv as [string, ...string[]];
      const result = await world.exec(file, args, { env: world.env, timeoutMs: RUN_TIMEOUT_MS });
      const output = `${result.stdout}\n${result.stderr}`.trim();
      if (result.ok || (step.tolerate && step.tolerate.test(output))) return { ok: true };
      return {
        ok: false,
        detail: result.failure ? (result.detail ?? result.failure) : `exit ${result.code}: ${output.split("\n").slice(-3).join(" / ")}`,
      };
    }
  }
}

export function reportOf(plan: HarnessPlan, steps: StepReport[]): HarnessReport {
  const failed = steps.some((step) => step.status === "failed");
  const changed = steps.some((step) => step.status === "done" || step.status === "planned");
  return {
    harness: plan.harness,
    ok: !failed && !plan.findings.some(isBlocking),
    changed,
    steps,
    findings: plan.findings,
    // What is left to do once the steps are done (restart the sessions, trust the hooks): after a failure that changed
    // nothing, it would speak of changes that did not happen.
    todo: failed && !changed ? [] : plan.todo,
  };
}

/** Run every step in order; after a failure the remaining steps are not run. */
export async function applyPlan(plan: HarnessPlan, world: InstallContext): Promise<HarnessReport> {
  const reports: StepReport[] = [];
  let failed = false;
  for (const step of plan.steps) {
    if (failed) {
      reports.push(describeStep(step, "not-run"));
      continue;
    }
    const result = await runStep(step, world);
    if (result.ok) reports.push(describeStep(step, "done"));
    else {
      failed = true;
      reports.push(describeStep(step, "failed", result.detail));
    }
  }
  return reportOf(plan, reports);
}
