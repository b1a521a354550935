// Human output for install, uninstall and doctor.
import { findHarness } from "../harnesses/registry.ts";
import { reportLines, type ReportRow } from "../harnesses/reports.ts";
import type { VersionCheck } from "../harnesses/versions.ts";
import type { DoctorReport, HarnessDoctor, InstallReport, StepReport } from "../install/plan.ts";
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

/**
 * What a file step changes, in a few words: its `why` lines counted by kind (`add 11 hooks`), the others as they are
 * (`add MCP server mcpServers.tongs-agents`).
 */
function changeSummary(why: readonly string[]): string {
  const hooks = new Map<string, number>();
  const others: string[] = [];
  for (const line of why) {
    const hook = /^(add|update|remove duplicate|remove) \S+ -> /.exec(line)?.[1];
    if (hook) hooks.set(hook, (hooks.get(hook) ?? 0) + 1);
    else others.push(line);
  }
  const counted = [...hooks].map(([verb, count]) => `${verb} ${count} hook${count === 1 ? "" : "s"}`);
  return [...counted, ...others].join("; ");
}

/** One line per step: the file and what changes in it, or the harness command and why it runs. */
function summaryLines(step: StepReport, home: string): string[] {
  if (step.kind === "run") {
    const [program = "", ...words] = step.command ?? [];
    // The command's leading words name what it does (`claude mcp add`); its paths are in --verbose.
    const verb = words.slice(0, 2).filter((word) => /^[a-z-]+$/.test(word));
    return [`  would run: ${[program.split("/").at(-1), ...verb].join(" ")} ...${step.why.length > 0 ? ` (${step.why.join("; ")})` : ""}`];
  }
  const what = changeSummary(step.why);
  return [`  ${shortenHome(step.path ?? "", home)} (${step.change})${what === "" ? "" : `: ${what}`}`];
}

/**
 * The report as text. A dry run shows a summary a person reads in one screen (per harness: each file and what changes
 * in it, each command, the states it reports and what it cannot); `verbose` adds every line of every change.
 */
export function formatInstallReport(report: InstallReport, home: string, { verbose = false }: { verbose?: boolean } = {}): string {
  const out: string[] = [];
  const summary = report.dry_run && !verbose;
  if (report.dry_run)
    out.push(
      `Dry run: nothing is changed. ${report.action === "install" ? "install" : "uninstall"} would do this${summary ? " (--verbose: every line of every change)" : ""}:`,
    );
  for (const harness of report.harnesses) {
    out.push("", `${nameOf(harness.harness)}:`);
    if (harness.steps.length === 0) out.push(report.action === "install" ? "  already up to date" : "  nothing of ours to remove");
    for (const step of harness.steps) out.push(...(summary ? summaryLines(step, home) : stepLines(step, report.dry_run, home)));
    for (const finding of harness.findings) out.push(`  ${finding.severity}: ${finding.message}`);
    for (const todo of harness.todo) out.push(`  to do: ${todo}`);
    // Its degradation tier, the adapters' one table (reports.ts): what it can report, what it cannot, what is untested.
    const entry = findHarness(harness.harness);
    if (report.action === "install" && entry) out.push(...reportLines(entry));
  }
  if (report.removed_directories)
    out.push(
      "",
      "Directories install made, now empty, removed:",
      ...report.removed_directories.map((dir) => `  ${shortenHome(dir, home)}`),
    );
  if (!report.ok) out.push("", "Not everything could be done: see the errors and conflicts above.");
  return out.join("\n").replace(/^\n/, "");
}

/** Doctor's report for one harness, with what the registry adds: its version against the proven ones, its tier. */
export type DoctorEntry = HarnessDoctor & { readonly version_check?: VersionCheck; readonly reports?: readonly ReportRow[] };

function versionLine(check: VersionCheck | undefined): string[] {
  if (!check) return [];
  if (check.status === "proven") return [`  version: ${check.version}, one our hooks were proven on`];
  return [`  version ${check.status === "unproven" ? `${check.version}: not proven` : "unknown"}: ${check.meaning}`];
}

export function formatDoctorReport(report: DoctorReport & { readonly harnesses: readonly DoctorEntry[] }, home: string): string {
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
    out.push(...versionLine(harness.version_check));
    if (harness.mcp !== "n/a") out.push(`  MCP server: ${harness.mcp}`);
    if (harness.bridge) out.push(`  bridge: ${harness.bridge}`);
    for (const problem of harness.problems) out.push(`  problem: ${problem}`);
    for (const legacy of harness.legacy) out.push(`  legacy: ${legacy}`);
    for (const todo of harness.todo) out.push(`  to do: ${todo}`);
    const entry = findHarness(harness.harness);
    if (entry) out.push(...reportLines(entry));
  }
  return out.join("\n");
}
