import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeSandbox } from "../../test/sandbox.ts";
import { configFilePath } from "../core/config-file.ts";
import { declaredWait, loadDeclaredAgents, parseDeclaredAgents } from "./declared.ts";

const good = { id: "aider", process_names: ["aider"], events: { start: "started", prompt: "running", ask: "waiting", done: "idle" } };

describe("agents declared in config.json", () => {
  it("a good entry becomes a process-ancestry harness with its event table", () => {
    const declared = parseDeclaredAgents([good]);
    expect(declared.problems).toEqual([]);
    expect(declared.agents).toEqual([
      {
        harness: {
          id: "aider",
          displayName: "aider",
          processNames: ["aider"],
          events: [],
          identity: "process-ancestry",
          capabilities: ["hooks", "discovery", "focus"],
          // What it can report is what its events are declared to set; nothing else, and no version was proven.
          reports: {
            started: { by: "hook" },
            running: { by: "hook" },
            tool: { by: "none", why: "a declared agent's events set states only" },
            waiting: { by: "hook" },
            idle: { by: "hook" },
            error: { by: "none", why: "no event of it is declared to set it" },
            interrupted: { by: "none", why: "a declared agent's events set states only" },
            ended: { by: "none", why: "no event of it is declared to set it" },
          },
          provenVersions: [],
        },
        events: good.events,
      },
    ]);
  });

  it("without events it is discovered and focused only", () => {
    const declared = parseDeclaredAgents([{ id: "mytool", process_names: ["mytool", "mytool-bin"] }]);
    expect(declared.agents[0]?.harness.capabilities).toEqual(["discovery", "focus"]);
    expect(declared.agents[0]?.events).toEqual({});
  });

  it.each([
    [
      "a bad id charset",
      { ...good, id: "My Agent" },
      `agents[0]: id: "My Agent": not a lowercase id (a-z, 0-9, -; at most 32, starting with a letter)`,
    ],
    ["a built-in id", { ...good, id: "claude" }, 'agents[0] (claude): id "claude" is a built-in harness'],
    ["a built-in's process name", { ...good, process_names: ["codex"] }, `process name "codex" is already codex's`],
    [
      "an unknown state",
      { ...good, events: { start: "busy" } },
      'agents[0] (aider): events.start: "busy" is not one of started, running, waiting, idle, error, ended',
    ],
    [
      "a bad event name",
      { ...good, events: { "Start Now": "started" } },
      `agents[0] (aider): events: key "Start Now": not an event name (a-z, 0-9, -; starting with a letter)`,
    ],
    [
      "a path as process name",
      { ...good, process_names: ["/usr/bin/aider"] },
      `process_names[0]: "/usr/bin/aider": not a plain process name (no /, no whitespace or control characters)`,
    ],
    ["no process name", { ...good, process_names: [] }, "process_names: 0 entries; it needs at least 1"],
    [
      "an unknown key",
      { ...good, argv_contains: "aider" },
      'agents[0] (aider): unknown key "argv_contains" (allowed: id, process_names, events)',
    ],
    ["not an object", "aider", 'agents[0]: "aider" is a string, not an object'],
    ["a number as process name", { ...good, process_names: [7] }, "process_names[0]: 7 is a number, not a string"],
    ["no process names at all", { id: "aider" }, "agents[0] (aider): process_names: missing (a list is required)"],
    ["an oversized entry", { ...good, process_names: ["a".repeat(5000)] }, "entry larger than 4096 bytes"],
    [
      "too many events",
      { ...good, events: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`e${i}`, "running"])) },
      "more than 32 events",
    ],
  ])("%s is rejected with a clear message, and the other entries still work", (_what, bad, message) => {
    const declared = parseDeclaredAgents([bad, { id: "other", process_names: ["other"] }], "/cfg/config.json");
    expect(declared.agents.map((agent) => agent.harness.id)).toEqual(["other"]);
    expect(declared.problems).toHaveLength(1);
    expect(declared.problems[0]).toContain(message);
    expect(declared.problems[0]).toMatch(/^\/cfg\/config\.json: agents\[0\].*; entry ignored$/);
  });

  it("a second entry with the same id or an already declared process name is rejected; the first stays", () => {
    const declared = parseDeclaredAgents([good, { ...good }, { id: "aider2", process_names: ["aider"] }]);
    expect(declared.agents.map((agent) => agent.harness.id)).toEqual(["aider"]);
    expect(declared.problems).toEqual([
      'config.json: agents[1] (aider): id "aider" is declared twice; entry ignored',
      `config.json: agents[2] (aider2): process name "aider" is already aider's; entry ignored`,
    ]);
  });

  it("remembers why an id was rejected, so the hook can say so", () => {
    expect(parseDeclaredAgents([{ ...good, events: { start: "busy" } }]).rejected).toHaveProperty("aider");
  });

  it("more than 32 agents: the rest are rejected", () => {
    const many = Array.from({ length: 33 }, (_, i) => ({ id: `a${i}`, process_names: [`a${i}`] }));
    const declared = parseDeclaredAgents(many);
    expect(declared.agents).toHaveLength(32);
    expect(declared.problems).toEqual(["config.json: agents[32] (a32): more than 32 agents; entry ignored"]);
  });

  it("agents that is not a list declares nothing, and says so", () => {
    expect(parseDeclaredAgents({ aider: good })).toMatchObject({ agents: [], problems: ["config.json: agents: not a list"] });
  });

  it("each state opens or closes waits the way the native events do", () => {
    expect(["started", "running", "waiting", "idle", "error", "ended"].map((s) => declaredWait(s as never))).toEqual([
      "clear",
      "answered",
      "input",
      "clear",
      "clear",
      "clear",
    ]);
  });

  it("is read from $XDG_CONFIG_HOME/tongs-agents/config.json beside the notification settings", () => {
    const sandbox = makeSandbox();
    try {
      expect(loadDeclaredAgents(sandbox.env)).toMatchObject({ agents: [], problems: [] });
      mkdirSync(join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents"), { recursive: true });
      writeFileSync(configFilePath(sandbox.env), JSON.stringify({ notifications: { quiet: true }, agents: [good] }));
      expect(loadDeclaredAgents(sandbox.env).agents.map((agent) => agent.harness.id)).toEqual(["aider"]);
      writeFileSync(configFilePath(sandbox.env), "{");
      expect(loadDeclaredAgents(sandbox.env)).toMatchObject({
        agents: [],
        problems: [expect.stringContaining("is not JSON; no declared agents")],
      });
    } finally {
      sandbox.cleanup();
    }
  });
});
