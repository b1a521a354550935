// `tongs-agents status`: counts by state for a status line, fast enough to run every few seconds (no process
// discovery: only records and their liveness).
import type { AttentionRank } from "../fleet/attention.ts";
import { EXIT_CODES } from "../core/errors.ts";
import type { StatusCounts } from "../fleet/queries.ts";
import { countsEverywhere } from "../hosts/everywhere.ts";
import type { HostReport } from "../hosts/remote.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";
import { quoted, tmuxFormatText } from "../core/terminal-text.ts";
import { noteStatusServer } from "../store/status-servers.ts";

/** A count the status shows: an attention rank, or `limited`, the errors a limit caused, shown apart from the others. */
type Shown = AttentionRank | "limited";

/** What the tmux status line shows, most urgent first; zero counts are left out. */
const SEGMENTS: readonly { rank: Shown; glyph: string; style: string }[] = [
  { rank: "waiting", glyph: "●", style: "fg=yellow,bold" },
  { rank: "error", glyph: "✖", style: "fg=red,bold" },
  { rank: "limited", glyph: "⧖", style: "fg=red" },
  { rank: "idle-unseen", glyph: "◆", style: "fg=green,bold" },
  { rank: "running", glyph: "▶", style: "fg=cyan" },
];

/** Plain words per rank, in attention order: every live session is counted under the state `list` shows for it. */
const WORDS: Readonly<Record<Exclude<Shown, "ended">, string>> = {
  waiting: "waiting",
  error: "error",
  limited: "limited",
  "idle-unseen": "done",
  running: "running",
  started: "started",
  idle: "idle",
  discovered: "discovered",
};

/** What each word counts: `error` here leaves out the limits (`limited`), which the counts include under `error`. */
function shownCount(counts: StatusCounts, rank: Shown): number {
  return rank === "error" ? counts.error - counts.limited : counts[rank];
}

export function formatStatus(counts: StatusCounts, format: "tmux" | "plain", hosts: readonly HostReport[] = []): string {
  // A host that could not be counted is said, not left out: its agents may be waiting.
  const missing = hosts.filter((host) => host.state !== "ok").map((host) => host.host);
  if (format === "plain") {
    const shown = Object.entries(WORDS).filter(([rank]) => shownCount(counts, rank as Shown) > 0);
    const text = shown.length === 0 ? "no agents" : shown.map(([rank, word]) => `${shownCount(counts, rank as Shown)} ${word}`).join(", ");
    return missing.length === 0 ? text : `${text}; unreachable: ${missing.join(", ")}`;
  }
  const shown = SEGMENTS.filter((segment) => shownCount(counts, segment.rank) > 0);
  // Host names are checked when read; tmux reads this line as a format all the same, so any `#` of theirs is doubled.
  const unreachable = missing.length === 0 ? [] : [`#[fg=red]?${missing.map(tmuxFormatText).join(",")}`];
  const segments = [...shown.map((segment) => `#[${segment.style}]${segment.glyph}${shownCount(counts, segment.rank)}`), ...unreachable];
  return segments.length === 0 ? "" : `${segments.join(" ")}#[default]`;
}

const STATUS_HELP: VerbHelp = {
  usage: "status [--format tmux|plain|json] [--local]",
  summary:
    "Counts of live sessions by state, for a status line. Reads records and checks liveness, skips process\ndiscovery, so it is cheap to run every few seconds.",
  options: [
    ["--format tmux|plain|json", "plain (default): 2 waiting, 1 error; tmux: styled glyphs; json: every count"],
    ["--local", "this machine only (no SSH hosts)"],
  ],
  examples: ["tongs-agents status", "tongs-agents status --format tmux"],
};

export const statusVerb: Verb = withHelp(STATUS_HELP, async (args, context, io) => {
  const parsed = parse(args, { format: { type: "string", default: "plain" }, local: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const format = parsed.values.format;
  if (format !== "tmux" && format !== "plain" && format !== "json")
    return fail({ ok: false, reason: "usage", detail: `--format takes tmux, plain or json, not ${quoted(format)}` }, io, false);
  const local = parsed.values.local === true;
  // The segment runs for a tmux server (TMUX is the server's socket): note it, so that a change of state redraws it
  // at once (src/store/status-servers.ts).
  const server = format === "tmux" ? context.env.TMUX?.split(",")[0] : undefined;
  if (server) noteStatusServer(context.stateDir, server);
  const result = await countsEverywhere(context, { local });
  if ("problem" in result) {
    // A status line must not fill with errors: the tmux format prints nothing, the others say why.
    if (format === "tmux") return EXIT_CODES.ok;
    return fail({ ok: false, reason: "state-dir", detail: result.problem }, io, format === "json");
  }
  // The JSON keeps its shape for this machine alone (a remote read asks with --local); hosts add a `hosts` list.
  const json = result.hosts.length === 0 ? result.counts : { ...result.counts, hosts: result.hosts };
  io.stdout(format === "json" ? JSON.stringify(json) : formatStatus(result.counts, format, result.hosts));
  return EXIT_CODES.ok;
});
