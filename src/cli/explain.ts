// `tongs-agents explain <query> [--json]`: why a session shows its state (fleet/explain.ts). The human form lists the
// open waits and the last events oldest first; --json prints the explanation as the MCP tool returns it. A session on an
// SSH host (`HOST:query`, or a query nothing here matches) is explained by the host (src/cli/remote-session.ts).
import { formatAge } from "../core/age.ts";
import { toDisplayLine } from "../core/bounds.ts";
import { EXIT_CODES } from "../core/errors.ts";
import { explainSession, type Explanation } from "../fleet/explain.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { splitHostQuery } from "../hosts/find.ts";
import { colorStatus, statusLabel } from "./format.ts";
import { shortenHome } from "../core/home.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type CliIo, type Verb } from "./io.ts";

const EXPLAIN_HELP: VerbHelp = {
  usage: "explain <query> [--json] [--local]",
  summary:
    "Why a session shows its state: the waits still open, and the last events that made the state, oldest first, with\nwhen, from which source (hook, bridge, transcript, session-state, liveness check) and what each changed.\nHOST:query explains a session on an SSH host (docs/hosts.md).",
  options: [
    ["<query>", "which session (what focus takes: id, PID, directory or repository name)"],
    ["--json", "print the explanation as JSON (as the MCP tool explain_session returns it)"],
    ["--local", "this machine only (no SSH hosts)"],
  ],
  examples: ["tongs-agents explain webapp"],
};

export const explainVerb: Verb = withHelp(EXPLAIN_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, local: { type: "boolean" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const query = parsed.positionals[0] as string;
  const hosts = parsed.values.local === true ? [] : hostsOf(context).hosts;
  const split = splitHostQuery(query, hosts);
  // Loaded only for a host's session: the remote module imports this one's formatter.
  if (split) return (await import("./remote-session.ts")).explainRemote(context, io, json, { query: split.query, only: split.host });
  const result = await explainSession(context, query);
  if (!result.ok && result.reason === "not-found" && hosts.length > 0)
    return (await import("./remote-session.ts")).explainRemote(context, io, json, { query, localMiss: result });
  if (!result.ok) return fail(result, io, json);
  io.stdout(json ? JSON.stringify(result.explanation, null, 2) : formatExplanation(result.explanation, context.now(), io));
  return EXIT_CODES.ok;
});

export function formatExplanation(
  { session, pending, entries, unwritten, note }: Explanation,
  now: number,
  io: Pick<CliIo, "color">,
): string {
  const lines = [`${session.short_id}  ${session.harness}  ${toDisplayLine(shortenHome(session.cwd))}`];
  lines.push(
    `  ${colorStatus(session.status, statusLabel(session), io.color)}${session.detail ? `: ${toDisplayLine(session.detail)}` : ""}`,
  );
  if (pending.length > 0) {
    lines.push("Open waits (the newest is shown):");
    for (const wait of pending)
      lines.push(
        `  ${wait.kind}${wait.tool ? ` ${toDisplayLine(wait.tool)}` : ""}  ${formatAge(wait.since, now)} ago  ${toDisplayLine(wait.detail)}`,
      );
  }
  if (entries.length > 0) {
    lines.push("Last events, oldest first (source, event, state after it, what changed):");
    const width = Math.max(...entries.map((entry) => toDisplayLine(entry.event).length));
    for (const entry of entries) {
      const when = `${formatAge(entry.at, now)} ago`.padStart(8);
      const event = toDisplayLine(entry.event).padEnd(width);
      lines.push(
        `  ${when}  ${entry.source.padEnd(8)}  ${event}  ${entry.status.padEnd(7)}  ${toDisplayLine(entry.change)}${entry.recorded ? "" : "  (not written)"}`,
      );
    }
  }
  if (unwritten > 0)
    lines.push(
      `${unwritten} change(s) shown are not written yet: events queued while the record's lock was busy, or a session replaced meanwhile; the next event writes them.`,
    );
  if (note) lines.push(toDisplayLine(note));
  return lines.join("\n");
}
