import { EXIT_CODES } from "../core/errors.ts";
import { prune } from "../store/prune.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const PRUNE_HELP: VerbHelp = {
  usage: "prune [--dry-run] [--json]",
  summary: "Remove ended and stale session records, the pointers of removed sessions, and temp files left by an\ninterrupted write.",
  options: [
    ["--dry-run", "list what would be removed, remove nothing"],
    ["--json", "print what was (or would be) removed as JSON"],
  ],
  examples: ["tongs-agents prune --dry-run"],
};

export const pruneVerb: Verb = withHelp(PRUNE_HELP, async (args, context, io) => {
  const parsed = parse(args, { "dry-run": { type: "boolean" }, json: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await prune({
    stateDir: context.stateDir,
    processes: context.processes,
    dryRun: parsed.values["dry-run"] === true,
    now: context.now,
  });
  if (!result.ok) return fail(result, io, json);
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else {
    const verb = result.dry_run ? "Would remove" : "Removed";
    const records = result.removed.filter((entry) => entry.kind === "record");
    io.stdout(`${verb} ${records.length} session record(s) and ${result.removed.length - records.length} other file(s).`);
    for (const entry of records) io.stdout(`  ${entry.short_id}  ${entry.reason}`);
  }
  return EXIT_CODES.ok;
});
