// list and status across SSH hosts, with a fake ssh whose "hosts" run our own CLI on their own sandboxed state
// (test/fake-hosts.ts): mocked transport, real remote output, real shell quoting.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeMachine, fakeSsh, type FakeMachine, type SshCall } from "../../test/fake-hosts.ts";
import type { Sandbox } from "../../test/sandbox.ts";
import { run } from "../core/exec.ts";
import type { SessionRecord } from "../core/schema.ts";
import { addHost } from "../hosts/edit.ts";
import type { HostReport, HostedSession } from "../hosts/remote.ts";
import type { CliContext } from "./context.ts";
import { runCli, type CliIo } from "./run.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");

const sandboxes: Sandbox[] = [];
afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));

const machine = (sessions: [string, number, SessionRecord["status"]][]) => fakeMachine(sandboxes, sessions, NOW);

let out: string[];
const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => out.push(text), color: false, columns: 160 };
let here: CliContext;
let calls: SshCall[];
beforeEach(() => {
  out = [];
  calls = [];
  here = machine([["local-run", 100, "running"]]);
});

function withHosts(machines: Record<string, FakeMachine>, hosts: [string, string][]): CliContext {
  for (const [name, destination] of hosts) expect(addHost(here.env, name, destination).ok).toBe(true);
  return { ...here, sshRun: fakeSsh(machines, calls) };
}

async function listJson(context: CliContext, ...args: string[]) {
  out = [];
  expect(await runCli(["list", "--json", ...args], context, io)).toBe(0);
  return JSON.parse(out.join("\n")) as { sessions: HostedSession[]; hosts: HostReport[] };
}

describe("list across hosts", () => {
  it("tags every row with its host (empty here) and sorts all rows by attention", async () => {
    const context = withHosts(
      {
        "me@devbox": {
          context: machine([
            ["remote-wait", 200, "waiting"],
            ["remote-idle", 300, "idle"],
          ]),
        },
      },
      [["devbox", "me@devbox"]],
    );
    const listed = await listJson(context);
    expect(listed.sessions.map((row) => [row.host, row.session_id, row.attention])).toEqual([
      ["devbox", "remote-wait", "waiting"],
      ["devbox", "remote-idle", "idle-unseen"],
      ["", "local-run", "running"],
    ]);
    expect(listed.hosts).toEqual([expect.objectContaining({ host: "devbox", destination: "me@devbox", state: "ok", invalid_rows: 0 })]);
    // The host is asked for its own sessions only (--local), so hosts never recurse into each other.
    expect(calls.map((call) => call.words)).toEqual([["tongs-agents", "list", "--json", "--local"]]);
  });

  it("shows remote rows as HOST:ID in the table and says which host is unreachable, keeping the local rows", async () => {
    const context = withHosts(
      {
        devbox: { context: machine([["remote-wait", 200, "waiting"]]) },
        gone: { context: machine([]), unreachable: "ssh: connect to host gone port 22: No route to host" },
      },
      [
        ["devbox", "devbox"],
        ["gone", "gone"],
      ],
    );
    out = [];
    expect(await runCli(["list"], context, io)).toBe(0);
    const text = out.join("\n");
    expect(text).toMatch(/^devbox:[0-9a-f]{10} +claude +waiting/m);
    expect(text).toMatch(/^[0-9a-f]{10} +claude +running/m);
    expect(text).toContain("gone: unreachable (ssh: connect to host gone port 22: No route to host)");
  });

  it("--local asks no host", async () => {
    const context = withHosts({ devbox: { context: machine([["remote-wait", 200, "waiting"]]) } }, [["devbox", "devbox"]]);
    const listed = await listJson(context, "--local");
    expect(listed.sessions.map((row) => row.session_id)).toEqual(["local-run"]);
    expect(listed.hosts).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("a host cannot produce rows for another host or for this machine, nor rows that do not fit", async () => {
    const good = await listJson({ ...machine([["remote-wait", 200, "waiting"]]), sshRun: fakeSsh({}) });
    const row = good.sessions[0]!;
    const answer = JSON.stringify({
      sessions: [
        { ...row, host: "" },
        { ...row, host: "devbox" },
        { ...row, id: "x; rm -rf ~" },
        { ...row, status: "hacked" },
        { ...row, cwd: "x".repeat(5000) },
      ],
    });
    const context = withHosts({ evil: { context: here, answer: { ok: true, code: 0, stdout: answer, stderr: "" } } }, [["evil", "evil"]]);
    const listed = await listJson(context);
    expect(listed.sessions.map((session) => session.host)).toEqual(["evil", ""]);
    expect(listed.hosts[0]).toMatchObject({ host: "evil", state: "ok", invalid_rows: 4 });
  });

  it.each([
    ["not JSON", { ok: true, code: 0, stdout: "Welcome to devbox!\n{", stderr: "" }, /answer is not JSON/],
    ["too large", { ok: true, code: 0, stdout: `{"sessions":[],"pad":"${"x".repeat(1024 * 1024)}"}`, stderr: "" }, /larger than/],
    ["not a listing", { ok: true, code: 0, stdout: '{"sessions":{}}', stderr: "" }, /not a session listing/],
    ["no tongs-agents there", { ok: false, code: 127, stdout: "", stderr: "bash: tongs-agents: command not found" }, /not found on bad/],
  ])("reports a host whose answer is %s as failed, with no rows from it", async (_what, answer, detail) => {
    const context = withHosts({ bad: { context: here, answer } }, [["bad", "bad"]]);
    const listed = await listJson(context);
    expect(listed.sessions.map((session) => session.host)).toEqual([""]);
    expect(listed.hosts[0]).toMatchObject({ host: "bad", state: "failed", detail: expect.stringMatching(detail) });
  });

  it("bounds a host that never answers (a real process killed at the bound) without holding up the local rows", async () => {
    const dir = sandboxes[0]!.root;
    const hang = join(dir, "ssh-that-hangs");
    writeFileSync(hang, "#!/bin/sh\nexec sleep 30\n");
    chmodSync(hang, 0o755);
    for (const name of ["a", "b", "c"]) addHost(here.env, name);
    // In parallel: the three hosts' processes all run at once (so three at the bound cost one bound, not three).
    let running = 0;
    let most = 0;
    const context: CliContext = {
      ...here,
      sshRun: async (_file, args, options) => {
        most = Math.max(most, ++running);
        try {
          return await run(hang, args, options);
        } finally {
          running--;
        }
      },
      hostTimeoutMs: 500,
    };
    const listed = await listJson(context);
    expect(listed.sessions.map((row) => row.session_id)).toEqual(["local-run"]);
    expect(listed.hosts.map((host) => [host.host, host.state, host.detail])).toEqual([
      ["a", "unreachable", "no answer within 500 ms"],
      ["b", "unreachable", "no answer within 500 ms"],
      ["c", "unreachable", "no answer within 500 ms"],
    ]);
    expect(most).toBe(3);
  });
});

describe("status across hosts", () => {
  it("adds the reachable hosts' counts and names the unreachable ones", async () => {
    const context = withHosts(
      {
        devbox: {
          context: machine([
            ["w1", 200, "waiting"],
            ["w2", 201, "waiting"],
          ]),
        },
        gone: { context: here, unreachable: "ssh: connect to host gone port 22: Connection refused" },
      },
      [
        ["devbox", "devbox"],
        ["gone", "gone"],
      ],
    );
    out = [];
    expect(await runCli(["status"], context, io)).toBe(0);
    expect(out).toEqual(["2 waiting, 1 running; unreachable: gone"]);
    out = [];
    expect(await runCli(["status", "--format", "tmux"], context, io)).toBe(0);
    expect(out).toEqual(["#[fg=yellow,bold]●2 #[fg=cyan]▶1 #[fg=red]?gone#[default]"]);
    out = [];
    expect(await runCli(["status", "--format", "json"], context, io)).toBe(0);
    expect(JSON.parse(out[0]!)).toMatchObject({
      waiting: 2,
      running: 1,
      total: 3,
      hosts: [
        { host: "devbox", state: "ok" },
        { host: "gone", state: "unreachable" },
      ],
    });
    expect(calls[0]?.words).toEqual(["tongs-agents", "status", "--format", "json", "--local"]);
  });
});

describe("hosts add --timeout and hosts list", () => {
  it("stores a host's own bound and shows every host's bound (its own or the default)", async () => {
    out = [];
    expect(await runCli(["hosts", "add", "far", "me@far", "--timeout", "7.5"], here, io)).toBe(0);
    expect(await runCli(["hosts", "add", "near"], here, io)).toBe(0);
    out = [];
    expect(await runCli(["hosts", "list"], here, io)).toBe(0);
    expect(out).toEqual(["far  me@far  7.5 s", "near  near  3 s"]);
    out = [];
    expect(await runCli(["hosts", "list", "--json"], here, io)).toBe(0);
    expect((JSON.parse(out.join("\n")) as { hosts: unknown[] }).hosts).toEqual([
      { name: "far", destination: "me@far", command: "tongs-agents", timeout_ms: 7500 },
      { name: "near", destination: "near", command: "tongs-agents", timeout_ms: 3000 },
    ]);
  });

  it.each(["0.2", "31", "1e1", "0x10", "five", ""])("refuses --timeout %j and stores nothing", async (value) => {
    out = [];
    expect(await runCli(["hosts", "add", "far", "--timeout", value], here, io)).toBe(2);
    expect(out.join("\n")).toMatch(/--timeout takes seconds/);
    out = [];
    await runCli(["hosts", "list", "--json"], here, io);
    expect((JSON.parse(out.join("\n")) as { hosts: unknown[] }).hosts).toEqual([]);
  });

  it("a host's own bound is the bound its reads run under", async () => {
    const ran: (number | undefined)[] = [];
    expect((await runCli(["hosts", "add", "far", "--timeout", "9"], here, io)) === 0).toBe(true);
    const sshRun = fakeSsh({ far: { context: machine([]) } }, calls);
    const context: CliContext = {
      ...here,
      sshRun: async (file, args, options) => (ran.push(options?.timeoutMs), sshRun(file, args, options)),
    };
    await listJson(context);
    expect(ran).toEqual([9000]);
  });
});
