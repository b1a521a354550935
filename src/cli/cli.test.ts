import { mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { EXIT_CODES } from "../core/errors.ts";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { runCliProcess } from "../../test/processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { canonicalId, digestOf } from "../core/identity.ts";
import { ensureStateDirs } from "../store/paths.ts";
import type { SessionRecord } from "../core/schema.ts";
import type { SessionView } from "../fleet/view.ts";
import { recordPath, writeRecord } from "../store/records.ts";
import { statusServers } from "../store/status-servers.ts";
import type { CliContext } from "./context.ts";
import { VERBS, VERB_NAMES, runCli, type CliIo } from "./run.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();

let sandbox: Sandbox;
let sessionsDir: string;
let context: CliContext;
let out: string[];
let err: string[];
const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), color: false, columns: 120 };

function put(
  harness: string,
  session: string,
  pid: number | null,
  status: SessionRecord["status"],
  extra: Partial<SessionRecord> = {},
): string {
  const id = canonicalId(harness, session, `pid:${pid}`);
  writeRecord(sessionsDir, digestOf(id) as string, {
    schema_version: 1,
    canonical_id: id,
    harness,
    session_id: session,
    instance_id: `pid:${pid}`,
    identity: pid === null ? "unresolved" : "process",
    pid,
    process_start: pid === null ? null : `linux:boot:${pid}00`,
    cwd: `/work/${session}`,
    status,
    detail: `${status} detail`,
    tool: "",
    sequence: null,
    arrival_sequence: 1,
    last_event: `${harness}.x`,
    created_at: at(600),
    updated_at: at(60),
    status_changed_at: at(60),
    terminal: { env: {} },
    ...extra,
  });
  return id;
}

beforeEach(() => {
  sandbox = makeSandbox();
  sessionsDir = ensureStateDirs(sandbox.stateDir).sessionsDir;
  out = [];
  err = [];
  const alive = [
    fakeProcess(100, 1, "claude"),
    fakeProcess(200, 1, "codex"),
    fakeProcess(300, 1, "pi"),
    fakeProcess(400, 1, "claude"),
    fakeProcess(500, 1, "claude", ["claude"], { startToken: "linux:boot:other" }),
  ];
  context = {
    env: sandbox.env,
    stateDir: sandbox.stateDir,
    cwd: sandbox.root,
    processes: fakeProcessSource(alive),
    listProcesses: async () => [
      { pid: 100, ppid: 1, name: "claude", cmd: "claude" },
      { pid: 400, ppid: 1, name: "claude", cmd: "claude --resume" },
      { pid: 401, ppid: 400, name: "claude", cmd: "claude" },
      { pid: 600, ppid: 1, name: "codex", cmd: "/opt/codex app-server --managed-daemon" },
      { pid: 700, ppid: 1, name: "claudette", cmd: "claudette" },
    ],
    now: () => NOW,
  };
});
afterEach(() => sandbox.cleanup());

const listJson = async (...args: string[]) => {
  expect(await runCli(["list", "--json", ...args], context, io)).toBe(0);
  return (JSON.parse(out.join("\n")) as { sessions: SessionView[] }).sessions;
};

describe("list", () => {
  it("sorts by attention and hides ended and stale sessions unless --all", async () => {
    put("claude", "running-one", 100, "running");
    put("codex", "waiting-one", 200, "waiting");
    put("pi", "idle-one", 300, "idle");
    put("claude", "error-one", 100, "error", { status_changed_at: at(5) });
    put("claude", "ended-one", 100, "ended");
    put("claude", "dead-one", 999, "running");
    put("claude", "reused-pid", 500, "waiting");
    const sessions = await listJson();
    expect(sessions.map((session) => `${session.status}:${session.session_id || session.id}`)).toEqual([
      "waiting:waiting-one",
      "error:error-one",
      "idle:idle-one",
      "running:running-one",
      "discovered:discovered:claude:400",
    ]);
    const all = await (async () => {
      out = [];
      return listJson("--all");
    })();
    const stale = all.filter((session) => session.stale);
    expect(stale.map((session) => [session.session_id, session.status, session.recorded_status])).toEqual(
      expect.arrayContaining([
        ["dead-one", "ended", "running"],
        ["reused-pid", "ended", "waiting"],
      ]),
    );
    expect(stale.find((session) => session.session_id === "reused-pid")?.stale_reason).toContain("another process");
  });

  it("discovers harness processes without a record by exact name only, skipping the daemon and helper children", async () => {
    const sessions = await listJson();
    expect(sessions.map((session) => session.id)).toEqual(["discovered:claude:100", "discovered:claude:400"]);
  });

  it("says a discovered Codex UI may report through a running shared daemon, and only then", async () => {
    const ui = { pid: 200, ppid: 1, name: "codex", cmd: "codex" };
    const daemon = {
      pid: 600,
      ppid: 200,
      name: "codex",
      cmd: "/root/.codex/packages/app-server-daemon/releases/x/bin/codex app-server --listen unix:// --managed-daemon",
    };
    const detailOf = async (listed: (typeof ui)[]) => {
      out = [];
      context = { ...context, listProcesses: async () => listed };
      return (await listJson()).map((session) => [session.id, session.detail]);
    };
    expect(await detailOf([ui, daemon])).toEqual([
      ["discovered:codex:200", "running; its hooks may report through the Codex CLI shared daemon"],
    ]);
    expect(await detailOf([ui])).toEqual([["discovered:codex:200", "running, no hook events yet"]]);
  });

  it("includes launch_id and profile_id, empty when absent", async () => {
    put("claude", "launched", 100, "idle", { launch: { launch_id: "a".repeat(32), profile_id: "review" } });
    put("codex", "plain", 200, "idle");
    const sessions = await listJson();
    expect(sessions.map((session) => [session.session_id, session.launch_id, session.profile_id])).toEqual(
      expect.arrayContaining([
        ["launched", "a".repeat(32), "review"],
        ["plain", "", ""],
      ]),
    );
  });

  it("prints a table with short id, agent, status, age, directory and display-safe detail", async () => {
    put("claude", "s1", 100, "waiting", { detail: "permission: Bash\u001b[2J" });
    expect(await runCli(["list"], context, io)).toBe(0);
    const [header, row] = out.join("\n").split("\n");
    expect(header).toMatch(/^ID\s+AGENT\s+STATUS\s+AGE\s+CTX\s+DIRECTORY\s+DETAIL$/);
    // The escape is shown, never sent to the terminal.
    expect(row).toMatch(/^[0-9a-f]{10}\s+claude\s+waiting\s+1m\s+—\s+\/work\/s1\s+permission: Bash\\u001b\[2J$/);
  });

  it("reports a state dir it refuses to use", async () => {
    const { symlinkSync, mkdirSync } = await import("node:fs");
    mkdirSync(join(sandbox.root, "real"));
    symlinkSync(join(sandbox.root, "real"), join(sandbox.root, "link"));
    expect(await runCli(["list"], { ...context, stateDir: join(sandbox.root, "link") }, io)).toBe(1);
    expect(err.join("\n")).toContain("symlink");
  });
});

describe("show", () => {
  it("finds a session by canonical id, short-id prefix, native session id prefix or PID", async () => {
    const id = put("codex", "019a-unique-session", 200, "waiting");
    for (const query of [id, (digestOf(id) as string).slice(0, 6), "019a-uni", "200"]) {
      out = [];
      expect(await runCli(["show", query, "--json"], context, io)).toBe(0);
      expect(JSON.parse(out.join("\n")).id).toBe(id);
    }
  });

  it("lists the candidates when a query is ambiguous, and says when nothing matches", async () => {
    put("claude", "same-prefix-a", 100, "idle");
    put("codex", "same-prefix-b", 200, "idle");
    expect(await runCli(["show", "same-prefix"], context, io)).toBe(4);
    expect(err.join("\n")).toContain("2 sessions match");
    expect(err.filter((line) => line.includes("/work/same-prefix"))).toHaveLength(2);
    expect(await runCli(["show", "nothing-like-this"], context, io)).toBe(3);
  });
});

describe("prune", () => {
  it("removes ended and stale records, keeps live ones, and --dry-run removes nothing", async () => {
    const live = put("claude", "live", 100, "running");
    put("claude", "ended", 100, "ended");
    put("claude", "dead", 999, "idle");
    writeFileSync(
      join(sessionsDir, "instance-abc.json"),
      JSON.stringify({ schema_version: 1, canonical_id: canonicalId("claude", "gone", "x") }),
    );
    expect(await runCli(["prune", "--dry-run"], context, io)).toBe(0);
    expect(out.join("\n")).toContain("Would remove 2 session record(s)");
    expect(readdirSync(sessionsDir).filter((name) => name.endsWith(".json"))).toHaveLength(4);
    out = [];
    expect(await runCli(["prune", "--json"], context, io)).toBe(0);
    expect(
      JSON.parse(out.join("\n"))
        .removed.map((entry: { kind: string }) => entry.kind)
        .sort(),
    ).toEqual(["pointer", "record", "record"]);
    expect(readdirSync(sessionsDir).filter((name) => name.endsWith(".json"))).toEqual([`${digestOf(live)}.json`]);
  });

  it("removes the transcript cursors of records that are gone, and keeps a live record's", async () => {
    const live = digestOf(put("claude", "live", 100, "running")) as string;
    const ended = digestOf(put("claude", "ended", 100, "ended")) as string;
    const cursors = join(sandbox.stateDir, "transcripts");
    mkdirSync(cursors, { recursive: true });
    for (const digest of [live, ended, "f".repeat(64)]) writeFileSync(join(cursors, `${digest}.json`), "{}");
    expect(await runCli(["prune", "--json"], context, io)).toBe(0);
    const removed = JSON.parse(out.join("\n")).removed as { kind: string; id: string }[];
    expect(
      removed
        .filter((entry) => entry.kind === "cursor")
        .map((entry) => entry.id)
        .sort(),
    ).toEqual([`${ended}.json`, `${"f".repeat(64)}.json`].sort());
    expect(readdirSync(cursors)).toEqual([`${live}.json`]);
  });

  it("removes temp files an interrupted write left, in the sessions dir and in the state dir, once they are a minute old", async () => {
    const old = new Date(NOW - 5 * 60_000);
    const recent = new Date(NOW - 10_000);
    const leftovers = [join(sessionsDir, "a.json.1.x.tmp"), join(sandbox.stateDir, "validated-records.json.1.x.tmp")];
    const fresh = join(sandbox.stateDir, "seen.json.2.y.tmp");
    for (const path of [...leftovers, fresh]) writeFileSync(path, "{");
    for (const path of leftovers) utimesSync(path, old, old);
    utimesSync(fresh, recent, recent);
    expect(await runCli(["prune", "--json"], context, io)).toBe(0);
    expect(
      JSON.parse(out.join("\n"))
        .removed.map((entry: { kind: string; id: string }) => `${entry.kind} ${entry.id}`)
        .sort(),
    ).toEqual(["temp a.json.1.x.tmp", "temp validated-records.json.1.x.tmp"]);
    expect(readdirSync(sandbox.stateDir).filter((name) => name.endsWith(".tmp"))).toEqual(["seen.json.2.y.tmp"]);
    expect(readdirSync(sessionsDir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});

describe("the installed CLI", () => {
  it("runs as a process: usage errors exit 2, list works on an empty state dir", async () => {
    const usage = await runCliProcess(["frobnicate"], sandbox.env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("unknown command");
    const list = await runCliProcess(["list", "--json", "--all"], sandbox.env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject({ sessions: expect.any(Array) });
    expect(recordPath(sessionsDir, "x")).toContain(sandbox.stateDir);
  });
});

describe("wait", () => {
  it("exits 0 once the session is in the state, 8 on timeout, and like show for bad queries and options", async () => {
    put("claude", "waiting-one", 100, "waiting");
    expect(await runCli(["wait", "waiting-one", "--until", "waiting"], context, io)).toBe(0);
    expect(await runCli(["wait", "waiting-one", "--until", "idle", "--timeout", "0.05"], context, io)).toBe(EXIT_CODES.timeout);
    expect(err.at(-1)).toContain("still waiting");
    expect(await runCli(["wait", "nothing-here"], context, io)).toBe(EXIT_CODES["not-found"]);
    expect(await runCli(["wait", "waiting-one", "--until", "sleeping"], context, io)).toBe(EXIT_CODES.usage);
    expect(await runCli(["wait", "waiting-one", "--timeout", "soon"], context, io)).toBe(EXIT_CODES.usage);
  });
});

describe("the verb table", () => {
  it("is the one src/cli/verbs.json declares for the build (every verb, and the module that bundles it)", async () => {
    const declared = JSON.parse(readFileSync(join(import.meta.dirname, "verbs.json"), "utf8")) as Record<string, string>;
    expect(
      Object.keys(VERBS)
        .filter((verb) => verb !== "help")
        .sort(),
    ).toEqual(Object.keys(declared).sort());
    for (const [verb, module] of Object.entries(declared)) {
      const verbs = (await import(`./${module}.ts`)) as Record<string, unknown>;
      expect(Object.values(verbs)).toContain(await VERBS[verb]?.());
    }
  });
});

describe("--help and --version", () => {
  it("every verb answers --help and -h with its usage, options and an example on stdout, exit 0, running nothing", async () => {
    expect(VERB_NAMES.length).toBeGreaterThan(10);
    for (const verb of VERB_NAMES) {
      for (const flag of ["--help", "-h"]) {
        out = [];
        err = [];
        // Other arguments around the flag (even ones the verb would reject) do not matter: help comes first.
        expect(await runCli([verb, "--no-such-option", flag], context, io), `${verb} ${flag}`).toBe(0);
        const text = out.join("\n");
        expect(text, verb).toMatch(
          verb === "help" ? /^tongs-agents: which AI coding agent/ : new RegExp(`^Usage: tongs-agents ${verb}\\b`),
        );
        expect(text, verb).toMatch(/\nExamples?:\n {2}\S/);
        if (verb !== "help") expect(text, verb).toContain("-h, --help");
        expect(err, verb).toEqual([]);
      }
    }
  });

  it("help <verb> is that verb's help; an unknown one is a usage error", async () => {
    expect(await runCli(["help", "focus"], context, io)).toBe(0);
    expect(out.join("\n")).toMatch(/^Usage: tongs-agents focus <query>/);
    expect(await runCli(["help", "frobnicate"], context, io)).toBe(2);
    expect(err.join("\n")).toContain('unknown command "frobnicate"');
  });

  it("a --help after -- belongs to the command being launched, not to launch", async () => {
    // sh -c 'exit 3' --help: the command ran (exit 3), with --help as its $0.
    expect(await runCli(["launch", "--here", "--", "sh", "-c", "exit 3", "--help"], context, io)).toBe(3);
    expect(out.join("\n")).not.toContain("Usage:");
  });

  it("as a process: --version prints the package version, list --help and focus --help exit 0", async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { version: string };
    const printed = await runCliProcess(["--version"], sandbox.env);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(new RegExp(`^tongs-agents ${version.replaceAll(".", "\\.")} \\(build [0-9a-f]{16}\\)\n$`));
    for (const verb of ["list", "install", "focus"]) {
      const help = await runCliProcess([verb, "--help"], sandbox.env);
      expect(help.code, verb).toBe(0);
      expect(help.stdout, verb).toContain(`Usage: tongs-agents ${verb}`);
      expect(help.stderr, verb).toBe("");
    }
  });
});

describe("explain", () => {
  const history: SessionRecord["history"] = [
    { at: at(90), source: "hook", event: "claude.prompt-submit", status: "running", change: 'idle -> running; detail "processing prompt"' },
    {
      at: at(70),
      source: "hook",
      event: "claude.permission-request",
      status: "waiting",
      change: 'running -> waiting; detail "permission: Bash"; opened permission wait for Bash',
    },
    {
      at: at(60),
      source: "hook",
      event: "claude.tool-done",
      status: "waiting",
      change: "still waiting; permission wait for Bash still open",
    },
  ];
  const pending: SessionRecord["pending"] = [
    {
      kind: "permission",
      tool: "Bash",
      detail: "permission: Bash",
      candidates: ["toolu_1"],
      since: at(70),
      event: "claude.permission-request",
    },
  ];

  it("lists the open waits and the last events, oldest first, with their source and what each changed", async () => {
    put("claude", "s-wait", 100, "waiting", { detail: "permission: Bash", tool: "Bash", history, pending });
    expect(await runCli(["explain", "s-wait"], context, io)).toBe(0);
    const text = out.join("\n");
    expect(text).toContain("waiting: permission: Bash");
    expect(text).toMatch(/Open waits.*\n {2}permission Bash {2}1m ago {2}permission: Bash/);
    expect(text).toMatch(/1m ago {2}hook {6}claude\.tool-done +waiting {2}still waiting; permission wait for Bash still open/);
  });

  it("--json prints the explanation; a stale session gets the liveness check's verdict; a missing one exits 3", async () => {
    put("claude", "s-gone", 900, "idle", { history: history.slice(0, 1) });
    expect(await runCli(["explain", "s-gone", "--json"], context, io)).toBe(0);
    const explanation = JSON.parse(out.join("\n"));
    expect(
      explanation.entries.map((entry: { source: string; status: string; recorded: boolean }) => [
        entry.source,
        entry.status,
        entry.recorded,
      ]),
    ).toEqual([
      ["hook", "running", true],
      ["liveness", "ended", false],
    ]);
    expect(explanation.entries[1].change).toBe("recorded idle, shown ended: process 900 is gone");
    expect(await runCli(["explain", "nothing-like-it"], context, io)).toBe(3);
  });

  it("says so for a record written before history was kept", async () => {
    put("claude", "s-old", 100, "idle");
    expect(await runCli(["explain", "s-old"], context, io)).toBe(0);
    expect(out.join("\n")).toContain(`recorded before history was kept: the last event was claude.x at ${at(60)}`);
  });
});

describe("where a state comes from", () => {
  const history = (source: string, status: SessionRecord["status"], secondsAgo: number) => ({
    at: at(secondsAgo),
    source,
    event: "x",
    status,
    change: "",
  });
  it("gives each session's source and age: the event that began its state, the liveness check, discovery", async () => {
    put("claude", "hooked", 100, "waiting", {
      status_changed_at: at(30),
      history: [history("hook", "running", 90), history("hook", "waiting", 30), history("hook", "waiting", 10)],
    });
    put("claude", "stated", 100, "idle", {
      status_changed_at: at(20),
      history: [history("hook", "running", 90), history("transcript", "idle", 20)],
    });
    put("pi", "bridged", 300, "running", { identity: "emitter", status_changed_at: at(45) }); // no history: an emitter's
    put("claude", "dead-one", 999, "running");
    const sessions = await listJson("--all");
    const of = (id: string) => sessions.find((session) => session.session_id === id || session.id === id);
    expect([of("hooked")?.state_source, of("hooked")?.state_age_s]).toEqual(["hook", 30]);
    expect([of("stated")?.state_source, of("stated")?.state_age_s]).toEqual(["stated", 20]);
    expect([of("bridged")?.state_source, of("bridged")?.state_age_s]).toEqual(["bridge", 45]);
    expect([of("dead-one")?.state_source, of("dead-one")?.state_age_s]).toEqual(["liveness", 0]);
    expect([of("discovered:claude:400")?.state_source, of("discovered:claude:400")?.state_age_s]).toEqual(["liveness", 0]);
    out = [];
    expect(await runCli(["show", "stated", "--json"], context, io)).toBe(0);
    expect(JSON.parse(out.join("\n"))).toMatchObject({ state_source: "stated", state_age_s: 20 });
    out = [];
    expect(await runCli(["show", "stated"], context, io)).toBe(0);
    expect(out.join("\n")).toMatch(/said by: +stated, 20 s ago/);
  });
});

describe("mistyped words", () => {
  it.each([
    [["lsit"], 'unknown command "lsit"; did you mean list?'],
    [["list", "--jsno"], 'unknown option "--jsno"; did you mean --json?'],
    [["list", "--colour"], 'unknown option "--colour"; did you mean --color?'],
    [["install", "--agent", "cluade", "--dry-run"], 'unknown agent "cluade"; did you mean claude?'],
    [["doctor", "--agent", "gemnii"], 'unknown agent "gemnii"; did you mean gemini?'],
    [["help", "shwo"], 'unknown command "shwo"; did you mean show?'],
    [["notify", "mtue"], 'unknown notify command "mtue"; did you mean mute?'],
    [["list", "--color=allways"], '--color takes always, never or auto, not "allways"; did you mean always?'],
  ])("%j: exit 2 and one line naming the word meant", async (argv, line) => {
    expect(await runCli(argv, context, io)).toBe(EXIT_CODES.usage);
    expect(err).toEqual([`tongs-agents: ${line}`]);
    expect(out).toEqual([]);
  });

  it("a word near nothing says so in one line, never the whole usage", async () => {
    expect(await runCli(["frobnicate"], context, io)).toBe(EXIT_CODES.usage);
    expect(err).toEqual(['tongs-agents: unknown command "frobnicate" (tongs-agents help lists them)']);
    err = [];
    expect(await runCli(["list", "--frobnicate"], context, io)).toBe(EXIT_CODES.usage);
    expect(err).toEqual(['tongs-agents: unknown option "--frobnicate" (this command takes --json, --all, --local, --watch)']);
  });
});

describe("--color", () => {
  // eslint-disable-next-line no-control-regex
  const SGR = /\u001b\[[0-9;]*m/;
  it("always colours, never does not, auto follows the terminal and NO_COLOR (what the entry point found)", async () => {
    put("codex", "waiting-one", 200, "waiting");
    const listed = async (argv: string[], color: boolean) => {
      const lines: string[] = [];
      expect(await runCli(argv, context, { ...io, stdout: (text) => lines.push(text), color })).toBe(0);
      return lines.join("\n");
    };
    expect(await listed(["list"], true)).toMatch(SGR);
    expect(await listed(["list"], false)).not.toMatch(SGR);
    expect(await listed(["list", "--color=always"], false)).toMatch(SGR);
    expect(await listed(["--color", "never", "list"], true)).not.toMatch(SGR);
    expect(await listed(["list", "--color=auto"], true)).toMatch(SGR);
    // JSON never carries colour, whatever the option.
    expect(await listed(["list", "--json", "--color=always"], true)).not.toMatch(SGR);
  });
});

describe("status --format tmux", () => {
  it("notes the tmux server it draws for (from TMUX), so a change of state redraws it at once; other formats note none", async () => {
    put("codex", "waiting-one", 200, "waiting");
    const withTmux = { ...context, env: { ...context.env, TMUX: "/tmp/tmux-0/my server,123,0" } };
    expect(await runCli(["status", "--format", "plain"], withTmux, io)).toBe(0);
    expect(statusServers(sandbox.stateDir)).toEqual([]);
    expect(await runCli(["status", "--format", "tmux"], withTmux, io)).toBe(0);
    expect(out.at(-1)).toBe("#[fg=yellow,bold]●1#[default]");
    expect(statusServers(sandbox.stateDir)).toEqual(["/tmp/tmux-0/my server"]);
  });
});
