import { EXIT_CODES } from "../core/errors.ts";
import { prune } from "../store/prune.ts";
import { fail, parse, type Verb } from "./io.ts";

export const pruneVerb: Verb = async (args, context, io) => {
  const parsed = parse(args, { "dry-run": { type: "boolean" }, json: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await prune({ stateDir: context.stateDir, processes: context.processes, dryRun: parsed.values["dry-run"] === true, now: context.now });
  if (!result.ok) return fail(result, io, json);
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else {
    const verb = result.dry_run ? "Would remove" : "Removed";
    const records = result.removed.filter((entry) => entry.kind === "record");
    io.stdout(`${verb} ${records.length} session record(s) and ${result.removed.length - records.length} other file(s).`);
    for (const entry of records) io.stdout(`  ${entry.short_id}  ${entry.reason}`);
  }
  return EXIT_CODES.ok;
};
