// doctor lists the agents declared in config.json and exits 1 on a rejected entry; the MCP server accepts declared
// ids where it accepts a harness filter.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makePackageRoot, makeWorld } from "../../test/install-world.ts";
import { fakeProcessSource } from "../../test/fake-processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { configFilePath } from "../core/config-file.ts";
import { createMcpServer } from "../mcp/server.ts";
import type { CliContext } from "./context.ts";
import { runCli, type CliIo } from "./run.ts";

let sandbox: Sandbox;
let context: CliContext;
let out: string[];
const io: CliIo = { stdout: (text) => out.push(text), stderr: () => {}, color: false, columns: 120 };

const writeConfig = (value: unknown) => {
  const path = configFilePath(context.env);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
};
const mytool = { id: "mytool", process_names: ["mytool"], events: { begin: "started", done: "idle" } };

beforeEach(() => {
  sandbox = makeSandbox();
  const world = makeWorld(sandbox, { packageRoot: makePackageRoot(join(sandbox.root, "pkg")) });
  context = {
    env: world.env,
    stateDir: sandbox.stateDir,
    cwd: sandbox.root,
    processes: fakeProcessSource([]),
    now: Date.now,
    install: world,
  };
  out = [];
});
afterEach(() => sandbox.cleanup());

describe("doctor and declared agents", () => {
  it("says nothing of them when none are declared", async () => {
    await runCli(["doctor", "--agent", "claude"], context, io);
    expect(out.join("\n")).not.toContain("Declared agents");
  });

  it("lists each declared agent with its process names and events (exit 0)", async () => {
    writeConfig({ agents: [mytool, { id: "watcher", process_names: ["watcher", "watcherd"] }] });
    expect(await runCli(["doctor", "--agent", "claude"], context, io)).toBe(0);
    expect(out.join("\n")).toContain(
      [
        `Declared agents (${configFilePath(context.env)}):`,
        "  mytool: process mytool; events begin -> started, done -> idle",
        "  watcher: process watcher, watcherd; no events (discovery and focus only)",
      ].join("\n"),
    );
  });

  it("exits 1 on a rejected entry, naming it, while the valid ones are still listed (text and JSON)", async () => {
    writeConfig({ agents: [mytool, { id: "codex", process_names: ["x"] }] });
    expect(await runCli(["doctor", "--agent", "claude"], context, io)).toBe(1);
    expect(out.join("\n")).toContain(
      `  problem: ${configFilePath(context.env)}: agents[1] (codex): id "codex" is a built-in harness; entry ignored`,
    );
    out = [];
    expect(await runCli(["doctor", "--agent", "claude", "--json"], context, io)).toBe(1);
    expect(JSON.parse(out.join("\n"))).toMatchObject({
      ok: false,
      declared_agents: { agents: [{ id: "mytool", process_names: ["mytool"] }], problems: [expect.stringContaining("agents[1] (codex)")] },
    });
  });
});

describe("the MCP server and declared agents", () => {
  it("accepts a declared id as the harness filter, and still rejects an unknown one", async () => {
    writeConfig({ agents: [mytool] });
    const server = createMcpServer({
      stateDir: sandbox.stateDir,
      processes: fakeProcessSource([]),
      listProcesses: async () => [],
      env: context.env,
      version: "test",
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1" });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const declared = await client.callTool({ name: "list_sessions", arguments: { harness: "mytool" } });
      expect(declared.isError).toBeFalsy();
      expect(declared.structuredContent).toEqual({ sessions: [], hosts: [] });
      const unknown = await client.callTool({ name: "list_sessions", arguments: { harness: "nosuch" } });
      expect(unknown.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
