// How remote rows and hosts read in text: a remote session's id is shown as HOST:ID (what focus and show accept),
// and every host that gave no rows says why, under the table.
import type { HostReport, HostedSession } from "../hosts/remote.ts";

export function hostedForTable(sessions: readonly HostedSession[]): HostedSession[] {
  return sessions.map((session) => (session.host === "" ? session : { ...session, short_id: `${session.host}:${session.short_id}` }));
}

/** One line per host that is not fine (unreachable, failed, or sent rows that did not fit); empty when all are. */
export function formatHostReports(reports: readonly HostReport[], problem?: string): string {
  const lines: string[] = problem ? [`hosts: ${problem}`] : [];
  for (const report of reports) {
    if (report.state !== "ok") lines.push(`${report.host}: ${report.state} (${report.detail})`);
    else if (report.invalid_rows > 0) lines.push(`${report.host}: ${report.invalid_rows} row(s) left out (not a valid session)`);
  }
  return lines.join("\n");
}
