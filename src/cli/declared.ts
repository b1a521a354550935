// What `tongs-agents doctor` says about the agents declared in config.json (docs/declared-agents.md): each valid one
// with its process names and event table, and each rejected entry with its reason (doctor then exits 1).
import { loadDeclaredAgents } from "../harnesses/declared.ts";

export interface DeclaredAgentsReport {
  readonly path: string;
  readonly agents: readonly { id: string; process_names: readonly string[]; events: Readonly<Record<string, string>> }[];
  readonly problems: readonly string[];
}

export function declaredAgentsReport(env: NodeJS.ProcessEnv): DeclaredAgentsReport {
  const declared = loadDeclaredAgents(env);
  return {
    path: declared.path,
    agents: declared.agents.map(({ harness, events }) => ({ id: harness.id, process_names: harness.processNames, events })),
    problems: declared.problems,
  };
}

/** Nothing when nothing is declared and nothing is wrong: doctor's usual report is left as it was. */
export function formatDeclaredAgents(report: DeclaredAgentsReport): string {
  if (report.agents.length === 0 && report.problems.length === 0) return "";
  const out = ["", `Declared agents (${report.path}):`];
  for (const agent of report.agents) {
    const events = Object.entries(agent.events).map(([event, state]) => `${event} -> ${state}`);
    out.push(
      `  ${agent.id}: process ${agent.process_names.join(", ")}; ${events.length > 0 ? `events ${events.join(", ")}` : "no events (discovery and focus only)"}`,
    );
  }
  for (const problem of report.problems) out.push(`  problem: ${problem}`);
  return out.join("\n");
}
