// Human output for install, uninstall and doctor.
import { findHarness } from "../harnesses/registry.ts";
import type { DoctorReport, InstallReport, StepReport } from "../install/plan.ts";
import { shellQuote } from "../core/shell-quote.ts";
import { shortenHome } from "../core/home.ts";

const nameOf = (id: string): string => findHarness(id)?.displayName ?? id;

function stepLines(step: StepReport, dryRun: boolean, home: string): string[] {
  const mark = dryRun ? "" : step.status === "done" ? "" : ` [${step.status}${step.detail ? `: ${step.detail}` : ""}]`;
  const lines: string[] = [];
  if (step.kind === "run")
    lines.push(
      `  ${dryRun ? "would run" : "ran"}: ${(step.command ?? []).map(shellQuote).join(" ")}${mark}`,
      ...step.why.map((why) => `      ${why}`),
    );
  else {
    lines.push(`  ${shortenHome(step.path ?? "", home)} (${step.change})${mark}`, ...step.why.map((why) => `      ${why}`));
    if (dryRun) lines.push(...(step.diff ?? []).map((line) => `    ${line}`));
  }
  return lines;
}

export function formatInstallReport(report: InstallReport, home: string): string {
  const out: string[] = [];
  if (report.dry_run) out.push(`Dry run: nothing is changed. ${report.action === "install" ? "install" : "uninstall"} would do this:`);
  for (const harness of report.harnesses) {
    out.push("", `${nameOf(harness.harness)}:`);
    if (harness.steps.length === 0) out.push(report.action === "install" ? "  already up to date" : "  nothing of ours to remove");
    for (const step of harness.steps) out.push(...stepLines(step, report.dry_run, home));
    for (const finding of harness.findings) out.push(`  ${finding.severity}: ${finding.message}`);
    for (const todo of harness.todo) out.push(`  to do: ${todo}`);
    if (report.action === "install") for (const gap of findHarness(harness.harness)?.gaps ?? []) out.push(`  cannot report: ${gap}`);
  }
  if (!report.ok) out.push("", "Not everything could be done: see the errors and conflicts above.");
  return out.join("\n").replace(/^\n/, "");
}

export function formatDoctorReport(report: DoctorReport, home: string): string {
  const out = [
    `Node: ${report.node.path} (v${report.node.version})${report.node.ok ? "" : " -- too old: tongs-agents needs Node 22 or newer"}`,
    `Package: ${shortenHome(report.package_root, home)}`,
  ];
  for (const harness of report.harnesses) {
    out.push(
      "",
      `${nameOf(harness.harness)}: ${harness.binary ? `${shortenHome(harness.binary, home)} (${harness.version ?? "version unknown"})` : "not found on PATH"}`,
    );
    if (harness.hooks.length > 0) {
      const byStatus = new Map<string, string[]>();
      for (const hook of harness.hooks) byStatus.set(hook.status, [...(byStatus.get(hook.status) ?? []), hook.event]);
      out.push(
        `  hooks: ${[...byStatus].map(([status, events]) => `${status} ${events.length === harness.hooks.length ? "(all)" : events.join(", ")}`).join("; ")}`,
      );
      const trust = harness.hooks.filter((hook) => hook.trust !== undefined);
      if (trust.length > 0) {
        const untrusted = trust.filter((hook) => hook.trust !== "trusted");
        out.push(
          `  trust: ${untrusted.length === 0 ? "all our hooks trusted" : untrusted.map((hook) => `${hook.event} ${hook.trust}`).join(", ")}`,
        );
      }
    }
    if (harness.mcp !== "n/a") out.push(`  MCP server: ${harness.mcp}`);
    if (harness.bridge) out.push(`  bridge: ${harness.bridge}`);
    for (const problem of harness.problems) out.push(`  problem: ${problem}`);
    for (const legacy of harness.legacy) out.push(`  legacy: ${legacy}`);
    for (const todo of harness.todo) out.push(`  to do: ${todo}`);
  }
  return out.join("\n");
}
