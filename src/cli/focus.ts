import { exitCodeOfFocus } from "../core/errors.ts";
import { focusSession } from "../focus/service.ts";
import { formatFocus } from "./format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const FOCUS_HELP: VerbHelp = {
  usage: "focus <query> [--json] [--client <tty>]",
  summary:
    "Jump to the session's pane, tab and window, and say what was done: complete (0), partial (5), failed (6),\nunavailable (7), ambiguous (4) or not-found (3). The query may also be a directory or repository name.",
  options: [
    ["<query>", "which session: id, short id prefix, session id prefix, PID, directory or repository"],
    ["--json", "print the focus result as JSON"],
    ["--client <tty>", "the tmux client to move (a key binding passes #{client_tty})"],
  ],
  examples: ["tongs-agents focus webapp", "tongs-agents focus 3f2a --json"],
};

export const focusVerb: Verb = withHelp(FOCUS_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, client: { type: "string" } }, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const client = typeof parsed.values.client === "string" && parsed.values.client !== "" ? parsed.values.client : undefined;
  const result = await focusSession(parsed.positionals[0] as string, {
    ...context,
    client,
  });
  if (parsed.values.json === true) io.stdout(JSON.stringify(result, null, 2));
  else (result.state === "complete" ? io.stdout : io.stderr)(formatFocus(result));
  return exitCodeOfFocus(result.state);
});
