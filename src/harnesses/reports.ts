// The degradation table (each harness's `reports` in its harness.ts) read three ways: `install` and `doctor` print it
// per harness, their --json carries it, and docs/support-matrix.md's "What each harness can report" is generated from
// it (scripts/support-matrix.ts; a test fails when the two disagree).
import { REPORTED, type Harness, type Report, type Reported } from "./contract.ts";

/** Each row in words a user knows. */
export const REPORTED_LABELS: Readonly<Record<Reported, string>> = {
  started: "session start",
  running: "a prompt running",
  tool: "a tool running",
  waiting: "waiting for the user",
  idle: "turn done (idle)",
  error: "a failed turn (error)",
  interrupted: "Esc mid-turn (interrupted)",
  ended: "session end",
};

export type ReportRow = { readonly state: Reported } & Report;

/** The harness's table, in the rows' order. */
export function reportRows(harness: Harness): ReportRow[] {
  return REPORTED.map((state) => ({ state, ...harness.reports[state] }));
}

const SOURCE_WORDS = { hook: "its hooks", extension: "its extension's events" } as const;

export interface ReportSummary {
  /** What it reports, grouped by source: "session start, ... (its hooks)". */
  readonly reports: readonly string[];
  /** What it cannot: a state it never states, or what it leaves out of one it does. */
  readonly cannot: readonly string[];
  /** What has not been seen either way on the proven versions. */
  readonly untested: readonly string[];
}

export function reportSummary(harness: Harness): ReportSummary {
  const bySource = new Map<string, string[]>();
  const cannot: string[] = [];
  const untested: string[] = [];
  for (const row of reportRows(harness)) {
    const label = REPORTED_LABELS[row.state];
    if (row.by === "none") cannot.push(`${label}: ${row.why}`);
    else if (row.by === "untested") untested.push(`${label}: ${row.why}`);
    else {
      const source = row.by === "stated" ? `from its own files: ${row.from}` : SOURCE_WORDS[row.by];
      bySource.set(source, [...(bySource.get(source) ?? []), label]);
      if (row.limit) cannot.push(`${label}: ${row.limit}`);
    }
  }
  return { reports: [...bySource].map(([source, labels]) => `${labels.join(", ")} (${source})`), cannot, untested };
}

/** The lines install and doctor print under a harness. */
export function reportLines(harness: Harness): string[] {
  const summary = reportSummary(harness);
  return [
    ...summary.reports.map((line) => `  reports: ${line}`),
    ...summary.cannot.map((line) => `  cannot report: ${line}`),
    ...summary.untested.map((line) => `  untested: ${line}`),
  ];
}
