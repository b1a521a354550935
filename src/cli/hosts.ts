// `tongs-agents hosts [list|add|remove]`: the SSH hosts whose agents join list, status, the picker, next, focus and
// MCP (docs/hosts.md). Stored in the config file; ssh options stay in the user's ssh config.
import { EXIT_CODES } from "../core/errors.ts";
import { loadHosts } from "../hosts/config.ts";
import { addHost, removeHost } from "../hosts/edit.ts";
import { HOST_TIMEOUT_MS } from "../hosts/everywhere.ts";
import { didYouMean } from "../core/suggest.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb, type VerbIo } from "./io.ts";
import { quoted } from "../core/terminal-text.ts";

const HOSTS_HELP: VerbHelp = {
  usage: "hosts [list [--json] | add NAME [DESTINATION] [--command PATH] [--timeout SECONDS] | remove NAME]",
  summary:
    "SSH hosts whose agents are listed with this machine's. DESTINATION is what you pass to ssh (default NAME); user,\nport and keys come from your ssh config. Each host needs tongs-agents installed.",
  options: [
    ["--json", "list: print the hosts as JSON"],
    ["--command PATH", "add: the tongs-agents command on the host (default: tongs-agents on its PATH)"],
    ["--timeout SECONDS", `add: how long one read of the host may take, 0.5-30 (default ${HOST_TIMEOUT_MS / 1000})`],
  ],
  examples: ["tongs-agents hosts add devbox me@devbox.example", "tongs-agents hosts list", "tongs-agents hosts remove devbox"],
  subcommands: { list: [], add: [], remove: [] },
};

export const hostsVerb: Verb = withHelp(HOSTS_HELP, async (args, context, io) => {
  const parsed = parse(args, { json: { type: "boolean" }, command: { type: "string" }, timeout: { type: "string" } }, "any");
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const [action = "list", ...rest] = parsed.positionals;
  const usage = (detail: string) => fail({ ok: false, reason: "usage", detail }, io, json);
  if (action === "list") {
    if (rest.length > 0) return usage("hosts list takes no arguments");
    const loaded = loadHosts(context.env);
    if (loaded.problem) return fail({ ok: false, reason: "config", detail: loaded.problem }, io, json);
    // The bound each host is read within: its own `timeout_s`, else the default.
    const hosts = loaded.hosts.map(({ timeoutMs, ...host }) => ({ ...host, timeout_ms: timeoutMs ?? HOST_TIMEOUT_MS }));
    if (json) io.stdout(JSON.stringify({ path: loaded.path, hosts }, null, 2));
    else if (hosts.length === 0) io.stdout(`No hosts (add one: tongs-agents hosts add NAME [DESTINATION]). Config: ${loaded.path}`);
    else
      for (const host of hosts)
        io.stdout(
          `${host.name}  ${host.destination}  ${host.timeout_ms / 1000} s${host.command === "tongs-agents" ? "" : `  (${host.command})`}`,
        );
    return EXIT_CODES.ok;
  }
  if (action === "add") {
    const [name, destination] = rest;
    if (name === undefined || rest.length > 2) return usage("hosts add NAME [DESTINATION]");
    const command = typeof parsed.values.command === "string" ? parsed.values.command : undefined;
    const timeout = parsed.values.timeout;
    // Digits and one point only: "0x10", "1e1" and " 5" are not what a user meant by seconds.
    if (typeof timeout === "string" && !/^\d{1,3}(\.\d{1,3})?$/.test(timeout))
      return usage(`--timeout takes seconds (0.5-30), not ${quoted(timeout)}`);
    const added = addHost(context.env, name, destination, command, typeof timeout === "string" ? Number(timeout) : undefined);
    if (!added.ok) return fail(added, io, json);
    io.stdout(json ? JSON.stringify(added) : `${added.changed ? "added" : "unchanged"}: ${name} in ${added.path}`);
    return hostsInUse(context.env, io);
  }
  if (action === "remove") {
    const [name] = rest;
    if (name === undefined || rest.length > 1) return usage("hosts remove NAME");
    const removed = removeHost(context.env, name);
    if (!removed.ok) return fail(removed, io, json);
    io.stdout(json ? JSON.stringify(removed) : `removed: ${name} from ${removed.path}`);
    return hostsInUse(context.env, io);
  }
  const hint = didYouMean(action, ["list", "add", "remove"]);
  return usage(`unknown hosts action ${quoted(action)}${hint === "" ? " (list, add, remove)" : hint}`);
});

/** After an edit: the file holds the change, but a mistake elsewhere in its hosts keeps every host unused; say so. */
function hostsInUse(env: NodeJS.ProcessEnv, io: VerbIo): number {
  const problem = loadHosts(env).problem;
  if (problem === undefined) return EXIT_CODES.ok;
  io.stderr(`tongs-agents: no host is used until this is fixed: ${problem}`);
  return EXIT_CODES.error;
}
