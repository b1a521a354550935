// The MCP server (`tongs-agents mcp`, stdio): agents see their fleet and can focus a session. A thin layer over the
// same functions the CLI uses; every tool validates its input with zod and answers with structured content.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import type { ListProcesses } from "../core/process-table.ts";
import { focusSession } from "../focus/service.ts";
import type { ProcessSource } from "../core/proc.ts";
import { prune } from "../store/prune.ts";
import type { Clock } from "../core/clock.ts";
import { listEverywhere, type HostsContext } from "../hosts/everywhere.ts";
import { candidateOf, findSession, sessionsNeedingAttention, type FindResult, type FleetContext } from "../fleet/queries.ts";
import { WAIT_TARGETS, waitForSession } from "../fleet/wait.ts";
import { explainSession } from "../fleet/explain.ts";
import { LIFECYCLE_STATUSES } from "../core/schema.ts";
import { HARNESSES } from "../harnesses/registry.ts";
import { loadDeclaredAgents } from "../harnesses/declared.ts";
import { notifyOnChange } from "../hook/notify-trigger.ts";

export interface McpContext {
  readonly stateDir: string;
  readonly processes: ProcessSource;
  readonly listProcesses?: ListProcesses;
  readonly env?: NodeJS.ProcessEnv;
  /** How SSH hosts are reached (tests inject a fake ssh); the hosts themselves come from the config file in `env`. */
  readonly sshRun?: HostsContext["sshRun"];
  /** Focus is delegated, so tests can observe it without a terminal. */
  readonly focus?: typeof focusSession;
  readonly now?: Clock;
  readonly version: string;
}

const STATUSES = [...LIFECYCLE_STATUSES, "discovered"] as const;
/** MCP clients time requests out (commonly after a minute or a few): a wait is bounded well inside that. */
const DEFAULT_WAIT_SECONDS = 50;
const MAX_WAIT_SECONDS = 300;
/** What a tool that names one session takes: the queries `focus` accepts. */
const sessionQuery = () =>
  z.string().min(1).max(600).describe("Canonical id, short-id prefix, session id prefix, PID, or a unique directory/repo name");

type ToolResult = { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

const answer = (data: Record<string, unknown>): ToolResult => ({
  content: [{ type: "text", text: JSON.stringify(data, null, 2) }],
  structuredContent: data,
});
const refuse = (message: string, data: Record<string, unknown> = {}): ToolResult => ({
  content: [{ type: "text", text: message }],
  structuredContent: { error: message, ...data },
  isError: true,
});

/** A query that found no session, or several: the reason, and the candidates to choose from. */
function refuseFind(failure: Exclude<FindResult, { ok: true }>): ToolResult {
  return refuse(
    failure.detail,
    failure.reason === "ambiguous"
      ? { reason: failure.reason, candidates: failure.candidates.map(candidateOf) }
      : { reason: failure.reason },
  );
}

export function createMcpServer(deps: McpContext): McpServer {
  const env = deps.env ?? process.env;
  const context: FleetContext = {
    stateDir: deps.stateDir,
    processes: deps.processes,
    now: deps.now ?? Date.now,
    // A turn outcome a harness stated in its files (Codex's usage limit) notifies like one its hook reported.
    onStated: (applied, sessionsDir) => void notifyOnChange(applied, sessionsDir, { stateDir: deps.stateDir, env }),
    ...(deps.listProcesses ? { listProcesses: deps.listProcesses } : {}),
  };
  const server = new McpServer({ name: "tongs-agents", version: deps.version });
  // Built-in harnesses and the agents declared in config.json when the server starts (docs/declared-agents.md).
  const declared = loadDeclaredAgents(deps.env ?? process.env).agents.map((agent) => agent.harness.id);
  const harnessIds = [...HARNESSES.map((harness) => harness.id), ...declared] as [string, ...string[]];

  server.registerTool(
    "list_sessions",
    {
      title: "List agent sessions",
      description:
        "Every AI coding agent session tongs-agents knows, here and on configured SSH hosts, sorted by who needs the user first (waiting, error, idle, running, started, discovered, ended). Ended and stale sessions are left out unless include_ended is true. Each session carries launch_id and profile_id (empty when absent) and host (empty for this machine); what the agent states about itself: limit (a turn a usage or rate limit ended: the harness's words, resets_at), model, context {used, window, percent}, tokens, quota windows, compacting, subagents (null or empty where its harness states nothing); `hosts` says how each SSH host answered (ok, unreachable, failed).",
      inputSchema: {
        status: z.array(z.enum(STATUSES)).optional().describe("Only these statuses"),
        harness: z.enum(harnessIds).optional().describe("Only this harness"),
        profile: z.string().max(32).optional().describe("Only sessions started with this launch profile"),
        include_ended: z.boolean().optional().describe("Include ended and stale sessions"),
      },
    },
    async ({ status, harness, profile, include_ended: includeEnded }) => {
      const hostsContext: HostsContext = { ...context, env: deps.env ?? {}, ...(deps.sshRun ? { sshRun: deps.sshRun } : {}) };
      const { sessions, problem, hosts } = await listEverywhere(hostsContext, {
        all: includeEnded === true,
        local: deps.env === undefined,
      });
      if (problem) return refuse(problem);
      const shown = sessions.filter(
        (session) =>
          (!status || status.includes(session.status)) &&
          (!harness || session.harness === harness) &&
          (profile === undefined || session.profile_id === profile),
      );
      return answer({ sessions: shown, hosts });
    },
  );

  server.registerTool(
    "get_session",
    {
      title: "Get one agent session",
      description:
        "One session by canonical id, short-id prefix, the harness's own session id prefix, PID, or a unique directory/repo name (the queries focus accepts).",
      inputSchema: {
        query: sessionQuery(),
      },
    },
    async ({ query }) => {
      const found = await findSession(context, query);
      return found.ok ? answer({ session: found.session }) : refuseFind(found);
    },
  );

  server.registerTool(
    "explain_session",
    {
      title: "Explain a session's state",
      description:
        "Why a session shows its state: the last events that made it (when, from which source: hook, bridge, transcript, session-state, liveness check; what each changed), and the waits still open. For a user who doubts a status.",
      inputSchema: {
        query: sessionQuery(),
      },
    },
    async ({ query }) => {
      const result = await explainSession(context, query);
      return result.ok ? answer({ ...result.explanation }) : refuseFind(result);
    },
  );

  server.registerTool(
    "sessions_needing_attention",
    {
      title: "Sessions that need the user",
      description:
        "Sessions that need the user, most urgent first, by the same ranking as the picker, `next` and the status line: waiting for the user (a permission or a question), failed, and finished turns the user has not looked at since (focusing a session marks it seen).",
      inputSchema: {},
    },
    async () => {
      const { sessions, problem } = await sessionsNeedingAttention(context);
      return problem ? refuse(problem) : answer({ sessions });
    },
  );

  server.registerTool(
    "wait_for_session",
    {
      title: "Wait for an agent session to reach a state",
      description: `Return as soon as the session is in the given state (at once if it already is): waiting, idle, error, ended, or attention (waiting, error or idle). Times out after timeout_seconds (at most ${MAX_WAIT_SECONDS}); reports whether the state was reached, the wait timed out, or the session ended first.`,
      inputSchema: {
        query: sessionQuery(),
        until: z.enum(WAIT_TARGETS).optional().describe("The state to wait for (default attention)"),
        timeout_seconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe(`How long to wait (default ${DEFAULT_WAIT_SECONDS})`),
      },
    },
    async ({ query, until = "attention", timeout_seconds: timeout = DEFAULT_WAIT_SECONDS }, extra) => {
      const result = await waitForSession(context, query, until, timeout * 1000, extra.signal);
      if (result.ok) return answer({ outcome: "reached", session: result.session });
      if (result.reason === "timeout" || result.reason === "ended")
        return answer({ outcome: result.reason === "timeout" ? "timeout" : "ended", detail: result.detail, session: result.session });
      return refuseFind(result);
    },
  );

  server.registerTool(
    "focus_session",
    {
      title: "Focus an agent session",
      description:
        "Bring the user's terminal to the session's exact pane, tab and window. Returns the structured result: state (complete, partial, failed, unavailable, ambiguous, not-found) and what selection and activation each did.",
      inputSchema: {
        query: sessionQuery(),
        client: z.string().max(256).optional().describe("tmux client tty to pin the focus to"),
      },
    },
    async ({ query, client }) => {
      const result = await (deps.focus ?? focusSession)(query, { ...context, env: deps.env ?? process.env, client });
      const data = { ...result } as Record<string, unknown>;
      return result.state === "not-found" || result.state === "ambiguous" ? refuse(result.detail, data) : answer(data);
    },
  );

  server.registerTool(
    "cleanup_sessions",
    {
      title: "Remove ended and stale sessions",
      description: "Remove records of ended sessions and of sessions whose process is gone. dry_run lists what would go.",
      inputSchema: { dry_run: z.boolean().optional() },
    },
    async ({ dry_run: dryRun = false }) => {
      const result = await prune({ ...context, dryRun });
      return result.ok ? answer({ dry_run: result.dry_run, removed: result.removed }) : refuse(result.detail);
    },
  );

  return server;
}
