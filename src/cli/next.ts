// `tongs-agents next`: jump to the session that most needs the user, cycling through equally urgent ones.
import { join } from "node:path";
import { EXIT_CODES, exitCodeOfFocus } from "../core/errors.ts";
import { focusView } from "../focus/service.ts";
import { hostsOf, nextEverywhere, nextKey } from "../hosts/everywhere.ts";
import { focusOnHost } from "../hosts/focus.ts";
import { readJsonFile, writeJsonAtomic } from "../store/records.ts";
import { formatHostFocus } from "./focus.ts";
import { formatFocus } from "../focus/format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const NEXT_FILE = "next.json";

const NEXT_HELP: VerbHelp = {
  usage: "next [--client <tty>] [--json]",
  summary:
    "Jump to the session that most needs you (the picker's order), here or on a configured host; run it again to\ncycle through equally urgent ones. Exits 3 when no live session exists.",
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
  const file = readJsonFile(join(context.stateDir, NEXT_FILE), 4096);
  const previous =
    file.kind === "json" && typeof (file.value as { last?: unknown }).last === "string" ? (file.value as { last: string }).last : undefined;
  const { target, problem } = await nextEverywhere(context, previous);
  if (problem) return fail({ ok: false, reason: "state-dir", detail: problem }, io, json);
  if (!target) return fail({ ok: false, reason: "not-found", detail: "no live agent session to go to" }, io, json);
  writeJsonAtomic(join(context.stateDir, NEXT_FILE), { schema_version: 1, last: nextKey(target) }, 4096);
  const host = target.host === "" ? undefined : hostsOf(context).hosts.find((entry) => entry.name === target.host);
  if (host) {
    const across = await focusOnHost(host, target, { ...context, client });
    if (json) io.stdout(JSON.stringify(across, null, 2));
    else (across.state === "complete" ? io.stdout : io.stderr)(formatHostFocus(across));
    return across.state === "complete" ? EXIT_CODES.ok : exitCodeOfFocus(across.state);
  }
  const result = await focusView(target, {
    stateDir: context.stateDir,
    processes: context.processes,
    env: context.env,
    client,
    now: context.now,
    run: context.run,
  });
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else (result.state === "complete" ? io.stdout : io.stderr)(formatFocus(result, io.home));
  return result.state === "complete" ? EXIT_CODES.ok : exitCodeOfFocus(result.state);
});
