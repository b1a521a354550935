// The CLI: parse the verb and its options, run it, print its data (human or --json), and map the outcome to an exit
// code. The only place that decides exit codes.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { EXIT_CODES, exitCodeOf, exitCodeOfFocus, type Failure } from "../errors.ts";
import { focusSession } from "../focus.ts";
import { resolveStateDir } from "../paths.ts";
import { defaultProcessSource } from "../proc.ts";
import { prune } from "../prune.ts";
import type { CliContext } from "./context.ts";
import { formatDetails, formatFocus, formatTable, shortenHome } from "./format.ts";
import { listSessions } from "./list.ts";
import { showSession } from "./show.ts";

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly color: boolean;
  readonly columns: number;
}

const USAGE = `tongs-agents: which AI coding agent needs you now, and take me to it

Usage:
  tongs-agents list [--json] [--all]     sessions sorted by attention
  tongs-agents show <query> [--json]     one session (id, short id, session id prefix or PID)
  tongs-agents prune [--dry-run]         remove ended and stale records
  tongs-agents focus <query> [--json] [--client <tty>]
                                         jump to the session's pane, tab and window
  tongs-agents mcp                       MCP server on stdio (tools: list, get, attention, focus, cleanup)
  tongs-agents help

The hook command, for harness configuration: tongs-agents-hook <event> --agent <claude|codex|pi>`;

type Verb = (args: string[], context: CliContext, io: CliIo) => Promise<number>;

function parse(args: string[], options: ParseArgsConfig["options"], positionals: number): { values: Record<string, unknown>; positionals: string[] } | Failure {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true });
    if (parsed.positionals.length !== positionals) return { ok: false, reason: "usage", detail: `expected ${positionals} argument(s)` };
    return parsed;
  } catch (error) {
    return { ok: false, reason: "usage", detail: (error as Error).message };
  }
}

function fail(failure: Failure, io: CliIo, json: boolean): number {
  if (json) io.stdout(JSON.stringify(failure, null, 2));
  else {
    io.stderr(`tongs-agents: ${failure.detail}`);
    if (failure.reason === "ambiguous") {
      for (const candidate of failure.candidates) io.stderr(`  ${candidate.short_id}  ${candidate.harness}  ${candidate.status}  ${shortenHome(candidate.cwd)}  (${candidate.id})`);
    }
    if (failure.reason === "usage") io.stderr(USAGE);
  }
  return exitCodeOf(failure);
}

const verbs: Record<string, Verb> = {
  async list(args, context, io) {
    const parsed = parse(args, { json: { type: "boolean" }, all: { type: "boolean" } }, 0);
    if ("ok" in parsed) return fail(parsed, io, false);
    const json = parsed.values.json === true;
    const result = await listSessions(context, { all: parsed.values.all === true });
    if (result.problem) return fail({ ok: false, reason: "state-dir", detail: result.problem }, io, json);
    if (json) io.stdout(JSON.stringify({ sessions: result.sessions, invalid: result.invalid }, null, 2));
    else if (result.sessions.length === 0) io.stdout(parsed.values.all ? "No sessions." : "No agent sessions running. (`tongs-agents list --all` includes ended ones.)");
    else io.stdout(formatTable(result.sessions, { now: context.now, color: io.color, width: io.columns }));
    return EXIT_CODES.ok;
  },
  async show(args, context, io) {
    const parsed = parse(args, { json: { type: "boolean" } }, 1);
    if ("ok" in parsed) return fail(parsed, io, false);
    const json = parsed.values.json === true;
    const result = await showSession(context, parsed.positionals[0] as string);
    if (!result.ok) return fail(result, io, json);
    io.stdout(json ? JSON.stringify(result.session, null, 2) : formatDetails(result.session, context.now));
    return EXIT_CODES.ok;
  },
  async prune(args, context, io) {
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
  },
  async focus(args, context, io) {
    const parsed = parse(args, { json: { type: "boolean" }, client: { type: "string" } }, 1);
    if ("ok" in parsed) return fail(parsed, io, false);
    const client = typeof parsed.values.client === "string" && parsed.values.client !== "" ? parsed.values.client : undefined;
    const result = await focusSession(parsed.positionals[0] as string, { stateDir: context.stateDir, processes: context.processes, listProcesses: context.listProcesses, env: context.env, client, now: context.now });
    if (parsed.values.json === true) io.stdout(JSON.stringify(result, null, 2));
    else (result.state === "complete" ? io.stdout : io.stderr)(formatFocus(result));
    return exitCodeOfFocus(result.state);
  },
  async mcp(args, context, io) {
    const parsed = parse(args, {}, 0);
    if ("ok" in parsed) return fail(parsed, io, false);
    const { serveMcp } = await import("../mcp/stdio.ts");
    await serveMcp({ stateDir: context.stateDir, processes: context.processes, env: context.env });
    return EXIT_CODES.ok;
  },
  async help(_args, _context, io) {
    io.stdout(USAGE);
    return EXIT_CODES.ok;
  },
};

export function defaultContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  return { env, stateDir: resolveStateDir(env), processes: defaultProcessSource(), now: Date.now() };
}

export async function runCli(argv: readonly string[], context: CliContext, io: CliIo): Promise<number> {
  const [verb = "help", ...rest] = argv;
  const name = verb === "--help" || verb === "-h" ? "help" : verb;
  const run = Object.hasOwn(verbs, name) ? verbs[name] : undefined;
  if (!run) return fail({ ok: false, reason: "usage", detail: `unknown command ${JSON.stringify(verb)}` }, io, false);
  return run(rest, context, io);
}
