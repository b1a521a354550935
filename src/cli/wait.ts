// `tongs-agents wait <query> [--until STATE] [--timeout SECONDS]`: exit 0 as soon as the session is in the state. A
// session on an SSH host (`HOST:query`, or a query nothing here matches) is polled there (src/cli/remote-session.ts).
import { EXIT_CODES } from "../core/errors.ts";
import { WAIT_TARGETS, waitForSession, type WaitTarget } from "../fleet/wait.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { splitHostQuery } from "../hosts/find.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";
import { waitRemote } from "./remote-session.ts";
import { quoted } from "../core/terminal-text.ts";

/** With no --timeout, wait this long (a day): a script that wants to wait longer says so. */
const DEFAULT_TIMEOUT_SECONDS = 86_400;

const WAIT_HELP: VerbHelp = {
  usage: "wait <query> [--until waiting|idle|error|ended|attention] [--timeout SECONDS] [--json] [--local]",
  summary:
    "Return as soon as the session is in the state (at once if it already is): exit 0, 8 when the timeout passed first,\n9 when the session ended first. attention (the default) means waiting, error or idle: the user is needed.\nHOST:query waits for a session on an SSH host, asking it every 2 s (docs/hosts.md).",
  options: [
    ["<query>", "which session (what focus takes: id, PID, directory or repository name)"],
    ["--until STATE", "waiting, idle, error, ended or attention (default)"],
    ["--timeout SECONDS", "give up after this long (default a day)"],
    ["--json", "print the outcome and the session as JSON"],
    ["--local", "this machine only (no SSH hosts)"],
  ],
  examples: ["tongs-agents wait api --until idle --timeout 600 && git -C ~/src/api diff"],
};

export const waitVerb: Verb = withHelp(WAIT_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { until: { type: "string", default: "attention" }, timeout: { type: "string" }, json: { type: "boolean" }, local: { type: "boolean" } },
    1,
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const until = parsed.values.until as string;
  if (!(WAIT_TARGETS as readonly string[]).includes(until))
    return fail({ ok: false, reason: "usage", detail: `--until takes ${WAIT_TARGETS.join(", ")}, not ${quoted(until)}` }, io, json);
  const timeout = parsed.values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(parsed.values.timeout);
  if (!Number.isFinite(timeout) || timeout < 0)
    return fail(
      { ok: false, reason: "usage", detail: `--timeout takes a number of seconds (0 or more), not ${quoted(parsed.values.timeout)}` },
      io,
      json,
    );
  const query = parsed.positionals[0] as string;
  const request = { until: until as WaitTarget, timeoutMs: timeout * 1000 };
  const hosts = parsed.values.local === true ? [] : hostsOf(context).hosts;
  const split = splitHostQuery(query, hosts);
  if (split) return waitRemote(context, io, json, { query: split.query, only: split.host }, request);
  const result = await waitForSession(context, query, request.until, request.timeoutMs);
  if (!result.ok && result.reason === "not-found" && hosts.length > 0)
    return waitRemote(context, io, json, { query, localMiss: result }, request);
  if (!result.ok && result.reason !== "timeout" && result.reason !== "ended") return fail(result, io, json);
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else if (result.ok)
    io.stdout(`${result.session.short_id} ${result.session.status}${result.session.detail ? `: ${result.session.detail}` : ""}`);
  else io.stderr(`tongs-agents: ${result.detail}`);
  return result.ok ? EXIT_CODES.ok : EXIT_CODES[result.reason === "timeout" ? "timeout" : "ended"];
});
