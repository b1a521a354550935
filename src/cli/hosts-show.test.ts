// show and wait across SSH hosts, with the fake ssh of test/fake-hosts.ts (mocked transport; the host's answers are our
// own CLI's, run on its own sandboxed state, after a real sh split the quoted command line).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeMachine, fakeSsh, type FakeMachine, type SshCall } from "../../test/fake-hosts.ts";
import type { Sandbox } from "../../test/sandbox.ts";
import type { RunResult } from "../core/exec.ts";
import type { SessionRecord } from "../core/schema.ts";
import { addHost } from "../hosts/edit.ts";
import { hostsOf } from "../hosts/everywhere.ts";
import { waitOnHost } from "../hosts/wait.ts";
import type { CliContext } from "./context.ts";
import { runCli, type CliIo } from "./run.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const sandboxes: Sandbox[] = [];
afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));
const machine = (sessions: [string, number, SessionRecord["status"]][]) => fakeMachine(sandboxes, sessions, NOW);

let out: string[];
const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => out.push(text), color: false, columns: 160 };
let calls: SshCall[];
let here: CliContext;
beforeEach(() => {
  out = [];
  calls = [];
  here = machine([["local-run", 100, "running"]]);
});

function withHosts(machines: Record<string, FakeMachine>): CliContext {
  for (const name of Object.keys(machines)) expect(addHost(here.env, name, `me@${name}`).ok).toBe(true);
  return { ...here, sshRun: fakeSsh(Object.fromEntries(Object.entries(machines).map(([name, m]) => [`me@${name}`, m])), calls) };
}

async function cli(context: CliContext, ...args: string[]): Promise<{ code: number; text: string }> {
  out = [];
  const code = await runCli(args, context, io);
  return { code, text: out.join("\n") };
}

/** What `show --json` prints on `remote` for `query`, with `change` applied: a canned answer of the right shape. */
async function shown(remote: CliContext, query: string, change: Record<string, unknown> = {}): Promise<RunResult> {
  const { text } = await cli(remote, "show", "--json", "--local", "--", query);
  return { ok: true, code: 0, stdout: JSON.stringify({ ...(JSON.parse(text) as object), ...change }), stderr: "" };
}

describe("show across hosts", () => {
  it("HOST:query runs show on that host (its words quoted, after --) and prints the session named by its host", async () => {
    const context = withHosts({ devbox: { context: machine([["remote-wait", 200, "waiting"]]) } });
    const json = await cli(context, "show", "--json", "devbox:remote-wa");
    expect(json.code).toBe(0);
    const session = JSON.parse(json.text) as { host: string; session_id: string; status: string; id: string };
    expect(session).toMatchObject({ host: "devbox", session_id: "remote-wait", status: "waiting" });
    expect(calls.map((call) => call.words)).toEqual([["tongs-agents", "show", "--json", "--local", "--", "remote-wa"]]);
    const text = await cli(context, "show", `devbox:${session.id}`);
    expect(text.code).toBe(0);
    expect(text.text).toMatch(/^host: devbox \(me@devbox\)\n/);
    expect(text.text).toMatch(/short id: +devbox:[a-z0-9]+\n/);
    expect(text.text).toContain("/work/remote-wait");
  });

  it("a query nothing here matches is found on the hosts, then shown by the host that has it", async () => {
    const context = withHosts({ devbox: { context: machine([["remote-wait", 200, "waiting"]]) } });
    const { code, text } = await cli(context, "show", "--json", "remote-wait");
    expect(code).toBe(0);
    const session = JSON.parse(text) as { host: string; id: string };
    expect(session.host).toBe("devbox");
    expect(calls.map((call) => call.words)).toEqual([
      ["tongs-agents", "list", "--json", "--local", "--all"],
      ["tongs-agents", "show", "--json", "--local", "--", session.id],
    ]);
    // This machine's own sessions never ask a host.
    calls.length = 0;
    expect((await cli(context, "show", "local-run")).code).toBe(0);
    expect(calls).toEqual([]);
  });

  it("a query with shell characters reaches the host as one word; the host's not-found is named and exits 3", async () => {
    const context = withHosts({ devbox: { context: machine([["remote-wait", 200, "waiting"]]) } });
    const hostile = `x'; touch /tmp/pwned-by-tongs; echo '$(id)`;
    const { code, text } = await cli(context, "show", `devbox:${hostile}`);
    expect(code).toBe(3);
    expect(text).toMatch(/^tongs-agents: on devbox: /);
    expect(calls.map((call) => call.words.at(-1))).toEqual([hostile]);
  });

  it("refuses a session the host sends as another host's, and names an unreachable host (exit 1)", async () => {
    const remote = machine([["remote-wait", 200, "waiting"]]);
    const forged = await shown(remote, "remote-wait", { host: "other" });
    const context = withHosts({
      devbox: { context: remote, answer: forged },
      gone: { context: machine([]), unreachable: "ssh: connect to host gone port 22: No route to host" },
    });
    const refused = await cli(context, "show", "--json", "devbox:remote-wait");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.text)).toMatchObject({ ok: false, reason: "failed", detail: "devbox: answer is not a session" });
    const gone = await cli(context, "show", "gone:abc");
    expect(gone.code).toBe(1);
    expect(gone.text).toBe("tongs-agents: gone: unreachable (ssh: connect to host gone port 22: No route to host)");
  });

  it("lists the host's candidates as HOST:ID when the query is ambiguous there (exit 4)", async () => {
    const context = withHosts({
      devbox: {
        context: machine([
          ["twin-a", 200, "waiting"],
          ["twin-b", 300, "idle"],
        ]),
      },
    });
    const { code, text } = await cli(context, "show", "--json", "devbox:twin");
    expect(code).toBe(4);
    const failure = JSON.parse(text) as { reason: string; candidates: { short_id: string }[] };
    expect(failure.reason).toBe("ambiguous");
    expect(failure.candidates.map((candidate) => candidate.short_id.startsWith("devbox:"))).toEqual([true, true]);
  });
});

describe("explain across hosts", () => {
  it("HOST:query runs explain on that host and prints its checked answer named by its host; a malformed one is refused", async () => {
    const remote = machine([["remote-wait", 200, "waiting"]]);
    const context = withHosts({ devbox: { context: remote } });
    const json = await cli(context, "explain", "--json", "devbox:remote-wa");
    expect(json.code).toBe(0);
    const explanation = JSON.parse(json.text) as { session: { host: string; session_id: string }; entries: unknown[]; note: string };
    expect(explanation.session).toMatchObject({ host: "devbox", session_id: "remote-wait" });
    expect(calls.map((call) => call.words)).toEqual([["tongs-agents", "explain", "--json", "--local", "--", "remote-wa"]]);
    const text = await cli(context, "explain", "devbox:remote-wa");
    expect(text.code).toBe(0);
    expect(text.text).toMatch(/^host: devbox \(me@devbox\)\ndevbox:[a-z0-9]+ +claude +\/work\/remote-wait\n/);

    const bogus = {
      ...explanation,
      entries: [{ at: "2026-11-29T12:00:00.000Z", source: "hook", event: "x", status: "hacked", change: "", recorded: true }],
    };
    const refusing = withHosts({ other: { context: remote, answer: { ok: true, code: 0, stdout: JSON.stringify(bogus), stderr: "" } } });
    const refused = await cli(refusing, "explain", "other:remote-wa");
    expect(refused).toEqual({ code: 1, text: "tongs-agents: other: answer is not an explanation" });
  });
});

describe("wait across hosts", () => {
  it("returns at once when the host's session is already in the state, and times out (exit 8) when it is not", async () => {
    const context = withHosts({ devbox: { context: machine([["remote-wait", 200, "waiting"]]) } });
    const reached = await cli(context, "wait", "devbox:remote-wait", "--until", "waiting");
    expect(reached).toEqual({ code: 0, text: expect.stringMatching(/^devbox:[a-z0-9]+ waiting: waiting detail$/) });
    const timedOut = await cli(context, "wait", "--json", "devbox:remote-wait", "--until", "idle", "--timeout", "0");
    expect(timedOut.code).toBe(8);
    expect(JSON.parse(timedOut.text)).toMatchObject({ ok: false, reason: "timeout", host: "devbox", session: { host: "devbox" } });
  });

  it("polls the host by the session's id until it is in the state; a failed read midway is not an outcome", async () => {
    const remote = machine([["remote-run", 200, "running"]]);
    const running = await shown(remote, "remote-run");
    const idle = await shown(remote, "remote-run", { status: "idle", recorded_status: "idle" });
    const answers: (RunResult | "drop")[] = [running, running, "drop", idle];
    const context = withHosts({
      devbox: {
        context: remote,
        answers: (words) => {
          const next = answers.shift();
          if (next === "drop") return { ok: false, code: 255, stdout: "", stderr: "Connection to devbox closed by remote host." };
          return words[1] === "show" ? next : undefined;
        },
      },
    });
    const { hosts, remote: reach } = hostsOf(context);
    const result = await waitOnHost(hosts[0]!, "remote-run", "idle", 60_000, reach, { pollMs: 1 });
    expect(result).toMatchObject({ ok: true, outcome: "reached", host: "devbox", session: { status: "idle" } });
    const id = (JSON.parse(running.stdout) as { id: string }).id;
    expect(calls.map((call) => call.words.at(-1))).toEqual(["remote-run", id, id, id]);
  });

  it("a session the host no longer knows has ended (exit 9); an unreachable host at the start is exit 1", async () => {
    const remote = machine([["remote-run", 200, "running"]]);
    const running = await shown(remote, "remote-run");
    let asked = 0;
    const context = withHosts({
      devbox: { context: remote, answers: (words) => (words[1] === "show" && asked++ === 0 ? running : undefined) },
      gone: { context: machine([]), unreachable: "ssh: connect to host gone port 22: Connection refused" },
    });
    // The second read runs the host's real CLI with the canonical id of a record removed there meanwhile.
    const { rmSync } = await import("node:fs");
    rmSync(`${remote.stateDir}/sessions`, { recursive: true, force: true });
    const { hosts, remote: reach } = hostsOf(context);
    const ended = await waitOnHost(hosts[0]!, "remote-run", "idle", 60_000, reach, { pollMs: 1 });
    expect(ended).toMatchObject({ ok: false, reason: "ended", host: "devbox" });
    const gone = await cli(context, "wait", "gone:abc", "--timeout", "5");
    expect(gone).toEqual({ code: 1, text: "tongs-agents: gone: unreachable (ssh: connect to host gone port 22: Connection refused)" });
  });
});
