// The MCP server (`tongs-agents mcp`, stdio): agents see their fleet and can focus a session. A thin layer over the
// same functions the CLI uses; every tool validates its input with zod and answers with structured content.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import type { ListProcesses } from "../fleet/discovery.ts";
import { focusSession } from "../focus/service.ts";
import type { ProcessSource } from "../core/proc.ts";
import { prune } from "../store/prune.ts";
import { loadFleet, resolveQuery } from "../fleet/sessions.ts";
import type { Candidate } from "../core/errors.ts";
import { explainSession } from "../fleet/explain.ts";
import { LIFECYCLE_STATUSES } from "../core/schema.ts";
import { HARNESSES } from "../harnesses/registry.ts";

export interface McpDeps {
  readonly stateDir: string;
  readonly processes: ProcessSource;
  readonly listProcesses?: ListProcesses;
  readonly env?: NodeJS.ProcessEnv;
  /** Focus is delegated, so tests can observe it without a terminal. */
  readonly focus?: typeof focusSession;
  readonly now?: () => number;
  readonly version: string;
}

const STATUSES = [...LIFECYCLE_STATUSES, "discovered"] as const;
const HARNESS_IDS = HARNESSES.map((harness) => harness.id) as [string, ...string[]];
/** Idle sessions count as needing attention after this long by default. */
export const DEFAULT_IDLE_THRESHOLD_SECONDS = 300;

type ToolResult = { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

const answer = (data: Record<string, unknown>): ToolResult => ({ content: [{ type: "text", text: JSON.stringify(data, null, 2) }], structuredContent: data });
const refuse = (message: string, data: Record<string, unknown> = {}): ToolResult => ({ content: [{ type: "text", text: message }], structuredContent: { error: message, ...data }, isError: true });

export function createMcpServer(deps: McpDeps): McpServer {
  const now = deps.now ?? Date.now;
  const fleet = () => loadFleet({ stateDir: deps.stateDir, processes: deps.processes, ...(deps.listProcesses ? { listProcesses: deps.listProcesses } : {}), now: now() });
  const server = new McpServer({ name: "tongs-agents", version: deps.version });

  server.registerTool(
    "list_sessions",
    {
      title: "List agent sessions",
      description: "Every AI coding agent session tongs-agents knows, sorted by who needs the user first (waiting, error, idle, running, started, discovered, ended). Ended and stale sessions are left out unless include_ended is true. Each session carries launch_id and profile_id (empty when absent).",
      inputSchema: {
        status: z.array(z.enum(STATUSES)).optional().describe("Only these statuses"),
        harness: z.enum(HARNESS_IDS).optional().describe("Only this harness"),
        profile: z.string().max(32).optional().describe("Only sessions started with this launch profile"),
        include_ended: z.boolean().optional().describe("Include ended and stale sessions"),
      },
    },
    async ({ status, harness, profile, include_ended: includeEnded }) => {
      const { sessions, problem } = await fleet();
      if (problem) return refuse(problem);
      const shown = sessions.filter(
        (session) =>
          (includeEnded || session.status !== "ended") &&
          (!status || status.includes(session.status)) &&
          (!harness || session.harness === harness) &&
          (profile === undefined || session.profile_id === profile),
      );
      return answer({ sessions: shown });
    },
  );

  server.registerTool(
    "get_session",
    {
      title: "Get one agent session",
      description: "One session by canonical id, short-id prefix, the harness's own session id prefix, or PID.",
      inputSchema: { query: z.string().min(1).max(600).describe("Canonical id, short-id prefix, session id prefix or PID") },
    },
    async ({ query }) => {
      const { sessions, problem } = await fleet();
      if (problem) return refuse(problem);
      const found = resolveQuery(sessions, query);
      if (found.kind === "none") return refuse(`no session matches ${JSON.stringify(query)}`, { reason: "not-found" });
      if (found.kind === "ambiguous") return refuse(`${found.candidates.length} sessions match ${JSON.stringify(query)}; use a longer id`, { reason: "ambiguous", candidates: found.candidates.map(brief) });
      return answer({ session: found.session });
    },
  );

  server.registerTool(
    "explain_session",
    {
      title: "Explain a session's state",
      description: "Why a session shows its state: the last events that made it (when, from which source: hook, bridge, liveness check; what each changed), and the waits still open. For a user who doubts a status.",
      inputSchema: { query: z.string().min(1).max(600).describe("Canonical id, short-id prefix, session id prefix or PID") },
    },
    async ({ query }) => {
      const result = await explainSession({ stateDir: deps.stateDir, processes: deps.processes, ...(deps.listProcesses ? { listProcesses: deps.listProcesses } : {}), now: now() }, query);
      if (result.ok) return answer({ ...result.explanation });
      return result.reason === "ambiguous" ? refuse(result.detail, { reason: result.reason, candidates: result.candidates.map(brief) }) : refuse(result.detail, { reason: result.reason });
    },
  );

  server.registerTool(
    "sessions_needing_attention",
    {
      title: "Sessions that need the user",
      description: "Sessions waiting for the user (a permission or a question), failed ones, and ones idle for longer than the threshold.",
      inputSchema: { idle_threshold_seconds: z.number().int().min(0).max(86_400 * 7).optional().describe(`Idle sessions count after this many seconds (default ${DEFAULT_IDLE_THRESHOLD_SECONDS})`) },
    },
    async ({ idle_threshold_seconds: threshold = DEFAULT_IDLE_THRESHOLD_SECONDS }) => {
      const { sessions, problem } = await fleet();
      if (problem) return refuse(problem);
      const cutoff = now() - threshold * 1000;
      const needing = sessions.filter((session) => session.status === "waiting" || session.status === "error" || (session.status === "idle" && Date.parse(session.status_changed_at) <= cutoff));
      return answer({ sessions: needing, idle_threshold_seconds: threshold });
    },
  );

  server.registerTool(
    "focus_session",
    {
      title: "Focus an agent session",
      description: "Bring the user's terminal to the session's exact pane, tab and window. Returns the structured result: state (complete, partial, failed, unavailable, ambiguous, not-found) and what selection and activation each did.",
      inputSchema: {
        query: z.string().min(1).max(600).describe("Canonical id, short-id prefix, session id prefix, PID, or a unique directory/repo name"),
        client: z.string().max(256).optional().describe("tmux client tty to pin the focus to"),
      },
    },
    async ({ query, client }) => {
      const result = await (deps.focus ?? focusSession)(query, {
        stateDir: deps.stateDir,
        processes: deps.processes,
        ...(deps.listProcesses ? { listProcesses: deps.listProcesses } : {}),
        env: deps.env ?? process.env,
        client,
      });
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
      const result = await prune({ stateDir: deps.stateDir, processes: deps.processes, dryRun, now: now() });
      return result.ok ? answer({ dry_run: result.dry_run, removed: result.removed }) : refuse(result.detail);
    },
  );

  return server;
}

function brief(session: Candidate) {
  return { id: session.id, short_id: session.short_id, harness: session.harness, status: session.status, cwd: session.cwd };
}
