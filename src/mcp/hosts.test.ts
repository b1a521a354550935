// list_sessions across SSH hosts (mocked transport: test/fake-hosts.ts runs our CLI as the host).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { fakeMachine, fakeSsh } from "../../test/fake-hosts.ts";
import type { Sandbox } from "../../test/sandbox.ts";
import { addHost } from "../hosts/edit.ts";
import { createMcpServer } from "./server.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const sandboxes: Sandbox[] = [];
afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));

describe("MCP list_sessions with SSH hosts", () => {
  it("carries remote rows with their host, and how each host answered", async () => {
    const here = fakeMachine(sandboxes, [["local-run", 100, "running"]], NOW);
    const devbox = fakeMachine(sandboxes, [["remote-wait", 200, "waiting"]], NOW);
    addHost(here.env, "devbox");
    addHost(here.env, "gone");
    const server = createMcpServer({
      stateDir: here.stateDir,
      processes: here.processes,
      listProcesses: async () => [],
      env: here.env,
      sshRun: fakeSsh({ devbox: { context: devbox } }),
      now: () => NOW,
      version: "test",
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1" });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const result = await client.callTool({ name: "list_sessions", arguments: {} });
      const content = result.structuredContent as {
        sessions: { host: string; session_id: string }[];
        hosts: { host: string; state: string }[];
      };
      expect(content.sessions.map((session) => [session.host, session.session_id])).toEqual([
        ["devbox", "remote-wait"],
        ["", "local-run"],
      ]);
      expect(content.hosts.map((host) => [host.host, host.state])).toEqual([
        ["devbox", "ok"],
        ["gone", "unreachable"],
      ]);
    } finally {
      await client.close();
    }
  });
});
