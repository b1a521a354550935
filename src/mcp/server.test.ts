import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { CLI_BIN } from "../../test/processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import type { FocusResult } from "../focus/result.ts";
import { canonicalId, digestOf } from "../core/identity.ts";
import { markSeen } from "../fleet/seen.ts";
import { ensureStateDirs } from "../store/paths.ts";
import type { SessionRecord } from "../core/schema.ts";
import { recordPath, writeRecord } from "../store/records.ts";
import { createMcpServer } from "./server.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

let sandbox: Sandbox;
let sessionsDir: string;
let client: Client;
let focused: { query: string; client: string | undefined }[];

function put(
  session: string,
  pid: number,
  status: SessionRecord["status"],
  changedSecondsAgo: number,
  extra: Partial<SessionRecord> = {},
): string {
  const id = canonicalId("claude", session, `pid:${pid}`);
  writeRecord(sessionsDir, digestOf(id) as string, {
    schema_version: 1,
    canonical_id: id,
    harness: "claude",
    session_id: session,
    instance_id: `pid:${pid}`,
    identity: "process",
    pid,
    process_start: `linux:boot:${pid}00`,
    cwd: `/work/${session}`,
    status,
    detail: "",
    tool: "",
    sequence: null,
    arrival_sequence: 1,
    last_event: "claude.x",
    created_at: ago(3600),
    updated_at: ago(changedSecondsAgo),
    status_changed_at: ago(changedSecondsAgo),
    terminal: { env: {} },
    ...extra,
  });
  return id;
}

beforeEach(async () => {
  sandbox = makeSandbox();
  sessionsDir = ensureStateDirs(sandbox.stateDir).sessionsDir;
  focused = [];
  const server = createMcpServer({
    stateDir: sandbox.stateDir,
    processes: fakeProcessSource([100, 200, 300, 400].map((pid) => fakeProcess(pid, 1, "claude"))),
    listProcesses: async () => [],
    now: () => NOW,
    version: "test",
    focus: async (query, options) => {
      focused.push({ query, client: options.client });
      return {
        state: "complete",
        session: null,
        backend: "tmux",
        target: "tmux pane %1",
        located: true,
        selection: { attempted: true, succeeded: true, detail: "" },
        activation: { attempted: true, succeeded: true, detail: "" },
        detail: "",
        candidates: [],
      } satisfies FocusResult;
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: "test", version: "1" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});
afterEach(async () => {
  await client.close();
  sandbox.cleanup();
});

const call = async (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
const sessionsOf = (result: Awaited<ReturnType<typeof call>>) =>
  (result.structuredContent as { sessions: { session_id: string; launch_id: string; profile_id: string }[] }).sessions;

describe("MCP tools (in-process)", () => {
  it("lists the seven tools with input schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "cleanup_sessions",
      "explain_session",
      "focus_session",
      "get_session",
      "list_sessions",
      "sessions_needing_attention",
      "wait_for_session",
    ]);
    expect(tools.find((tool) => tool.name === "focus_session")?.inputSchema.required).toEqual(["query"]);
  });

  it("list_sessions filters by status, harness and profile and carries launch_id/profile_id", async () => {
    put("waits", 100, "waiting", 10, { launch: { launch_id: "a".repeat(32), profile_id: "review" } });
    put("works", 200, "running", 10);
    put("done", 300, "ended", 10);
    expect(sessionsOf(await call("list_sessions")).map((session) => [session.session_id, session.launch_id, session.profile_id])).toEqual([
      ["waits", "a".repeat(32), "review"],
      ["works", "", ""],
    ]);
    expect(sessionsOf(await call("list_sessions", { status: ["running"] })).map((session) => session.session_id)).toEqual(["works"]);
    expect(sessionsOf(await call("list_sessions", { profile: "review" })).map((session) => session.session_id)).toEqual(["waits"]);
    expect(sessionsOf(await call("list_sessions", { harness: "codex" }))).toEqual([]);
    expect(sessionsOf(await call("list_sessions", { include_ended: true }))).toHaveLength(3);
  });

  it("sessions_needing_attention: waiting, error, and finished turns the user has not seen, ranked like the picker", async () => {
    put("waits", 100, "waiting", 5);
    put("broke", 200, "error", 5);
    const seenIdle = put("idle-seen", 300, "idle", 900);
    put("idle-unseen", 400, "idle", 30);
    put("works", 400, "running", 1);
    markSeen(sandbox.stateDir, seenIdle);
    expect(sessionsOf(await call("sessions_needing_attention")).map((session) => session.session_id)).toEqual([
      "waits",
      "broke",
      "idle-unseen",
    ]);
  });

  it("get_session resolves queries and says clearly when nothing or several match", async () => {
    const id = put("unique-one", 100, "idle", 5);
    expect((await call("get_session", { query: "unique" })).structuredContent).toMatchObject({ session: { id } });
    const missing = await call("get_session", { query: "nope" });
    expect(missing).toMatchObject({ isError: true, structuredContent: { reason: "not-found" } });
    put("unique-two", 200, "idle", 5);
    const ambiguous = await call("get_session", { query: "unique" });
    expect(ambiguous).toMatchObject({ isError: true, structuredContent: { reason: "ambiguous" } });
    expect((ambiguous.structuredContent as { candidates: unknown[] }).candidates).toHaveLength(2);
  });

  it("explain_session answers what `tongs-agents explain` prints: the last events, their source, the open waits", async () => {
    put("doubted", 100, "waiting", 5, {
      detail: "permission: Bash",
      tool: "Bash",
      pending: [
        { kind: "permission", tool: "Bash", detail: "permission: Bash", candidates: [], since: ago(5), event: "claude.permission-request" },
      ],
      history: [
        {
          at: ago(5),
          source: "hook",
          event: "claude.permission-request",
          status: "waiting",
          change: 'running -> waiting; detail "permission: Bash"',
        },
      ],
    });
    expect((await call("explain_session", { query: "doubted" })).structuredContent).toMatchObject({
      session: { session_id: "doubted", status: "waiting" },
      pending: [{ kind: "permission", tool: "Bash" }],
      entries: [{ source: "hook", event: "claude.permission-request", status: "waiting", recorded: true }],
      unwritten: 0,
    });
    expect(await call("explain_session", { query: "nope" })).toMatchObject({ isError: true, structuredContent: { reason: "not-found" } });
  });

  it("focus_session returns the structured FocusResult and passes the client through", async () => {
    const result = await call("focus_session", { query: "abc", client: "/dev/pts/4" });
    expect(result.structuredContent).toMatchObject({ state: "complete", selection: { succeeded: true }, activation: { succeeded: true } });
    expect(focused).toEqual([{ query: "abc", client: "/dev/pts/4" }]);
  });

  it("cleanup_sessions removes ended and stale records, dry_run removes nothing", async () => {
    put("done", 100, "ended", 5);
    put("dead", 999, "idle", 5);
    const live = put("live", 200, "idle", 5);
    expect((await call("cleanup_sessions", { dry_run: true })).structuredContent).toMatchObject({
      dry_run: true,
      removed: [expect.anything(), expect.anything()],
    });
    expect((await call("cleanup_sessions")).structuredContent).toMatchObject({ dry_run: false });
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(sessionsDir).filter((name) => name.endsWith(".json") && !name.startsWith("instance-"))).toEqual([
      `${digestOf(live)}.json`,
    ]);
    expect(recordPath(sessionsDir, "x")).toContain(sessionsDir);
  });

  it("rejects bad arguments with a clear error", async () => {
    for (const [name, args] of [
      ["get_session", {}],
      ["get_session", { query: 5 }],
      ["list_sessions", { status: ["sleeping"] }],
    ] as const) {
      const result = await call(name, args as Record<string, unknown>);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/invalid|Invalid|expected/i);
    }
  });
});

describe("MCP over stdio (a real client process talking to tongs-agents mcp)", () => {
  it("initializes, lists tools and answers list_sessions", async () => {
    put("over-stdio", process.pid, "waiting", 5);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_BIN, "mcp"],
      env: sandbox.env as Record<string, string>,
      stderr: "pipe",
    });
    const stdioClient = new Client({ name: "stdio-test", version: "1" });
    await stdioClient.connect(transport);
    try {
      expect(stdioClient.getServerVersion()).toMatchObject({ name: "tongs-agents" });
      expect((await stdioClient.listTools()).tools).toHaveLength(7);
      const listed = await stdioClient.callTool({ name: "list_sessions", arguments: { include_ended: true } });
      expect(JSON.stringify(listed.structuredContent)).toContain("over-stdio");
    } finally {
      await stdioClient.close();
    }
  });
});

describe("wait_for_session", () => {
  it("answers at once when the session is in the state, and reports a timeout as an outcome", async () => {
    put("waits", 100, "waiting", 5);
    expect((await call("wait_for_session", { query: "waits", until: "waiting" })).structuredContent).toMatchObject({
      outcome: "reached",
      session: { session_id: "waits" },
    });
    expect((await call("wait_for_session", { query: "waits", until: "idle", timeout_seconds: 0.05 })).structuredContent).toMatchObject({
      outcome: "timeout",
    });
    expect(await call("wait_for_session", { query: "nope" })).toMatchObject({ isError: true, structuredContent: { reason: "not-found" } });
    expect((await call("wait_for_session", { query: "waits", timeout_seconds: 100_000 })).isError).toBe(true);
  });
});
