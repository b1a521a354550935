// `tongs-agents next`: jump to the session that most needs the user, cycling through equally urgent ones.
import { join } from "node:path";
import { chooseNext } from "../fleet/attention.ts";
import { EXIT_CODES, exitCodeOfFocus } from "../core/errors.ts";
import { focusView } from "../focus/service.ts";
import { loadFleet } from "../fleet/sessions.ts";
import { readJsonFile, writeJsonAtomic } from "../store/records.ts";
import { formatFocus } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const NEXT_FILE = "next.json";

const NEXT_HELP: VerbHelp = {
  usage: "next [--client <tty>] [--json]",
  summary:
    "Jump to the session that most needs you (the picker's order); run it again to cycle through equally urgent\nones. Exits 3 when no live session exists.",
  options: [
    ["--client <tty>", "the tmux client to move (a key binding passes #{client_tty})"],
    ["--json", "print the focus result as JSON"],
  ],
  examples: ["tongs-agents next"],
};

export const nextVerb: Verb = withHelp(NEXT_HELP, async (args, context, io) => {
  const parsed = parse(args, { client: { type: "string" }, json: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const client = typeof parsed.values.client === "string" && parsed.values.client !== "" ? parsed.values.client : undefined;
  const fleet = await loadFleet(context, { discover: false });
  if (fleet.problem) return fail({ ok: false, reason: "state-dir", detail: fleet.problem }, io, json);
  const file = readJsonFile(join(context.stateDir, NEXT_FILE), 4096);
  const previous =
    file.kind === "json" && typeof (file.value as { last?: unknown }).last === "string" ? (file.value as { last: string }).last : undefined;
  const target = chooseNext(fleet.sessions, fleet.seen, previous);
  if (!target) return fail({ ok: false, reason: "not-found", detail: "no live agent session to go to" }, io, json);
  writeJsonAtomic(join(context.stateDir, NEXT_FILE), { schema_version: 1, last: target.id }, 4096);
  const result = await focusView(target, {
    stateDir: context.stateDir,
    processes: context.processes,
    env: context.env,
    client,
    now: context.now,
  });
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else (result.state === "complete" ? io.stdout : io.stderr)(formatFocus(result));
  return result.state === "complete" ? EXIT_CODES.ok : exitCodeOfFocus(result.state);
});
