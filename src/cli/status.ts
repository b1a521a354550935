// `tongs-agents status`: counts by state for a status line, fast enough to run every few seconds (no process
// discovery: only records and their liveness).
import { PICKER_ORDER, rankOf, type AttentionRank } from "../attention.ts";
import { EXIT_CODES } from "../errors.ts";
import { readSeen } from "../seen.ts";
import { loadFleet } from "../sessions.ts";
import type { CliContext } from "./context.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

export type StatusCounts = Record<AttentionRank, number> & { total: number };

/** Counts of live sessions by attention rank (ended and stale sessions are not counted). */
export async function statusCounts(context: CliContext): Promise<StatusCounts | { problem: string }> {
  const fleet = await loadFleet({ stateDir: context.stateDir, processes: context.processes, discover: false, now: context.now });
  if (fleet.problem) return { problem: fleet.problem };
  const seen = readSeen(context.stateDir);
  const counts = Object.fromEntries(PICKER_ORDER.map((rank) => [rank, 0])) as Record<AttentionRank, number>;
  for (const session of fleet.sessions) if (session.status !== "ended") counts[rankOf(session, seen)]++;
  return { ...counts, total: fleet.sessions.filter((session) => session.status !== "ended").length };
}

/** What the status line shows, most urgent first; zero counts are left out. */
const SEGMENTS: readonly { rank: AttentionRank; glyph: string; word: string; style: string }[] = [
  { rank: "waiting", glyph: "●", word: "waiting", style: "fg=yellow,bold" },
  { rank: "error", glyph: "✖", word: "error", style: "fg=red,bold" },
  { rank: "idle-unseen", glyph: "◆", word: "done", style: "fg=green,bold" },
  { rank: "running", glyph: "▶", word: "running", style: "fg=cyan" },
];

export function formatStatus(counts: StatusCounts, format: "tmux" | "plain"): string {
  const shown = SEGMENTS.filter((segment) => counts[segment.rank] > 0);
  if (format === "plain") return shown.length === 0 ? (counts.total === 0 ? "no agents" : `${counts.total} idle`) : shown.map((segment) => `${counts[segment.rank]} ${segment.word}`).join(", ");
  return shown.length === 0 ? "" : `${shown.map((segment) => `#[${segment.style}]${segment.glyph}${counts[segment.rank]}`).join(" ")}#[default]`;
}

const STATUS_HELP: VerbHelp = {
  usage: "status [--format tmux|plain|json]",
  summary: "Counts of live sessions by state, for a status line. Reads records and checks liveness, skips process\ndiscovery, so it is cheap to run every few seconds.",
  options: [["--format tmux|plain|json", "plain (default): 2 waiting, 1 error; tmux: styled glyphs; json: every count"]],
  examples: ["tongs-agents status", "tongs-agents status --format tmux"],
};

export const statusVerb: Verb = withHelp(STATUS_HELP, async (args, context, io) => {
  const parsed = parse(args, { format: { type: "string", default: "plain" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const format = parsed.values.format;
  if (format !== "tmux" && format !== "plain" && format !== "json") return fail({ ok: false, reason: "usage", detail: "--format is tmux, plain or json" }, io, false);
  const counts = await statusCounts(context);
  if ("problem" in counts) {
    // A status line must not fill with errors: the tmux format prints nothing, the others say why.
    if (format === "tmux") return EXIT_CODES.ok;
    return fail({ ok: false, reason: "state-dir", detail: counts.problem }, io, format === "json");
  }
  io.stdout(format === "json" ? JSON.stringify(counts) : formatStatus(counts, format));
  return EXIT_CODES.ok;
});
