import { exitCodeOfFocus } from "../core/errors.ts";
import { focusSession } from "../focus/service.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { findOnHosts, splitHostQuery } from "../hosts/find.ts";
import { focusOnHost, type HostFocusResult } from "../hosts/focus.ts";
import { focusForSshClient, parsePort } from "../hosts/ssh-client.ts";
import { listTmuxClients } from "../../backends/tmux/clients.ts";
import type { FocusResult } from "../focus/result.ts";
import { formatFocus } from "../focus/format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type VerbIo, type Verb } from "./io.ts";
import type { CliContext } from "./context.ts";
import { quoted } from "../core/terminal-text.ts";

const FOCUS_HELP: VerbHelp = {
  usage: "focus <query> [--json] [--client <tty>] [--local]",
  summary:
    "Jump to the session's pane, tab and window, and say what was done: complete (0), partial (5), failed (6),\nunavailable (7), ambiguous (4) or not-found (3). The query may also be a directory or repository name, or\nHOST:query for a session on an SSH host (docs/hosts.md).",
  options: [
    ["<query>", "which session: id, short id prefix, session id prefix, PID, directory or repository"],
    ["--json", "print the focus result as JSON"],
    ["--client <tty>", "the tmux client to move (a key binding passes #{client_tty})"],
    ["--local", "this machine only (no SSH hosts)"],
    ["--ssh-from <port>", "move the tmux client that came in over ssh from this client port (sent across the hop)"],
  ],
  examples: ["tongs-agents focus webapp", "tongs-agents focus 3f2a --json", "tongs-agents focus devbox:3f2a"],
};

export const focusVerb: Verb = withHelp(FOCUS_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { json: { type: "boolean" }, client: { type: "string" }, local: { type: "boolean" }, "ssh-from": { type: "string" } },
    1,
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const sshFrom = parsed.values["ssh-from"];
  const port = typeof sshFrom === "string" ? parsePort(sshFrom) : undefined;
  if (typeof sshFrom === "string" && port === undefined)
    return fail({ ok: false, reason: "usage", detail: `--ssh-from takes a port number (1-65535), not ${quoted(sshFrom)}` }, io, false);
  const json = parsed.values.json === true;
  const client = typeof parsed.values.client === "string" && parsed.values.client !== "" ? parsed.values.client : undefined;
  const query = parsed.positionals[0] as string;
  const hosts = parsed.values.local === true ? [] : hostsOf(context).hosts;
  // The host's half of a focus across the hop: this machine's tmux client that came in over the user's ssh connection.
  if (port !== undefined) {
    const listClients = (tmuxEnv: string | undefined) => listTmuxClients(tmuxEnv, { run: context.run });
    return printLocal(await focusForSshClient(query, port, { ...context, client, listClients }), io, json);
  }
  const split = splitHostQuery(query, hosts);
  if (split) return focusRemote(context, io, json, client, split.query, split.host);
  const result = await focusSession(query, { ...context, client });
  if (result.state === "not-found" && hosts.length > 0) return focusRemote(context, io, json, client, query, undefined, result);
  return printLocal(result, io, json);
});

function printLocal(result: FocusResult, io: VerbIo, json: boolean): number {
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else (result.state === "complete" ? io.stdout : io.stderr)(formatFocus(result, io.home));
  return exitCodeOfFocus(result.state);
}

async function focusRemote(
  context: CliContext,
  io: VerbIo,
  json: boolean,
  client: string | undefined,
  query: string,
  only: Parameters<typeof findOnHosts>[2],
  localMiss?: FocusResult,
): Promise<number> {
  const found = await findOnHosts(context, query, only);
  if (!found.ok) {
    if (found.reason === "not-found" && localMiss) return printLocal(localMiss, io, json);
    if (found.reason === "unreachable") {
      const detail = localMiss ? `${localMiss.detail} here; ${found.detail}` : found.detail;
      if (json) io.stdout(JSON.stringify({ state: "not-found", detail, hosts: found.reports }, null, 2));
      else io.stderr(`tongs-agents: ${detail}`);
      return exitCodeOfFocus("not-found");
    }
    return fail(found, io, json);
  }
  const result = await focusOnHost(found.host, found.session, { ...context, client });
  if (json) io.stdout(JSON.stringify(result, null, 2));
  else (result.state === "complete" ? io.stdout : io.stderr)(formatHostFocus(result));
  return exitCodeOfFocus(result.state);
}

export function formatHostFocus(result: HostFocusResult): string {
  return [
    `${result.state}: ${result.host}:${result.session.short_id} ${result.session.harness} ${result.session.cwd}`,
    `  on ${result.host}: ${result.remote.state}${result.remote.target ? ` ${result.remote.target}` : ""}${result.remote.detail ? ` (${result.remote.detail})` : ""}`,
    `  here: ${result.local.detail}`,
  ].join("\n");
}
