// The host's half of focus across the hop: which tmux client came in over the user's ssh connection. Mocked: the
// process table, environments and tmux's client list are fakes; the focus backend records the client it was given.
import { afterEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { fakeMachine } from "../../test/fake-hosts.ts";
import type { Sandbox } from "../../test/sandbox.ts";
import type { CliContext } from "../cli/context.ts";
import { runCli } from "../cli/run.ts";
import type { Runner } from "../core/exec.ts";
import type { Terminal } from "../core/schema.ts";
import { done, registerBackend } from "../../backends/contract.ts";
import type { FocusServiceContext } from "../focus/service.ts";
import { matchSshClient, parsePort, sshConnectionPort, type SshFocusResult } from "./ssh-client.ts";

describe("sshConnectionPort and parsePort", () => {
  it.each([
    ["10.89.0.3 50000 10.89.0.2 22", 50000],
    ["::1 41234 ::1 22", 41234],
    ["10.89.0.3 0 10.89.0.2 22", undefined],
    ["10.89.0.3 65536 10.89.0.2 22", undefined],
    ["10.89.0.3 5e4 10.89.0.2 22", undefined],
    ["10.89.0.3 50000", undefined],
    ["", undefined],
  ])("SSH_CONNECTION %j: %s", (value, port) => expect(sshConnectionPort(value)).toBe(port));

  it.each([
    ["50000", 50000],
    ["1", 1],
    ["65535", 65535],
    ["0", undefined],
    ["-1", undefined],
    ["50000 22", undefined],
    ["$(reboot)", undefined],
    ["", undefined],
  ])("--ssh-from %j: %s", (text, port) => expect(parsePort(text)).toBe(port));
});

// The world of host B: sshd (100) → logins' shells → tmux clients; one client started on B itself (no ssh); an agent.
const processes = fakeProcessSource([
  fakeProcess(300, 1, "claude"),
  fakeProcess(100, 1, "sshd"),
  fakeProcess(110, 100, "bash"),
  fakeProcess(111, 110, "tmux: client"),
  fakeProcess(120, 100, "bash"),
  fakeProcess(121, 120, "tmux: client"),
  fakeProcess(130, 1, "tmux: client"),
  fakeProcess(140, 100, "bash"),
  fakeProcess(141, 140, "tmux: client"),
]);
const environs: Record<number, Record<string, string>> = {
  110: { SSH_CONNECTION: "10.0.0.1 50000 10.0.0.2 22" },
  111: { SSH_CONNECTION: "10.0.0.1 50000 10.0.0.2 22" },
  120: { SSH_CONNECTION: "10.0.0.9 50001 10.0.0.2 22" },
  // 121's environment lacks SSH_CONNECTION (started with env -u): its login shell's says where it came from.
  121: { TERM: "xterm" },
  130: { TERM: "xterm" },
  140: { SSH_CONNECTION: "10.0.0.1 50002 10.0.0.2 22" },
  141: { SSH_CONNECTION: "10.0.0.1 50002 10.0.0.2 22" },
};
const environOf = async (pid: number) => environs[pid];
const CLIENTS = [
  { tty: "/dev/pts/1", pid: 111 },
  { tty: "/dev/pts/2", pid: 121 },
  { tty: "/dev/pts/3", pid: 130 },
];

describe("matchSshClient", () => {
  it("the one client whose SSH_CONNECTION (its own, or its login's) came from the port", async () => {
    expect(await matchSshClient(CLIENTS, 50000, { environOf, processes })).toMatchObject({ state: "matched", tty: "/dev/pts/1" });
    expect(await matchSshClient(CLIENTS, 50001, { environOf, processes })).toMatchObject({ state: "matched", tty: "/dev/pts/2" });
  });

  it("none: no client came in over that connection (the one started on the host has no SSH_CONNECTION)", async () => {
    expect(await matchSshClient(CLIENTS, 40000, { environOf, processes })).toEqual({
      state: "none",
      tty: "",
      detail: "no client of 3 came in over ssh from port 40000",
    });
  });

  it("several: two sessions of one connection (ControlMaster) cannot be told apart", async () => {
    const shared = [...CLIENTS, { tty: "/dev/pts/4", pid: 141 }, { tty: "/dev/pts/5", pid: 141 }];
    expect(await matchSshClient(shared, 50002, { environOf, processes })).toMatchObject({ state: "several", tty: "" });
  });
});

describe("focus --ssh-from PORT (the host's CLI)", () => {
  const NOW = Date.parse("2026-12-02T07:00:00.000Z");
  const sandboxes: Sandbox[] = [];
  afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));

  async function focus(
    port: string,
    extra: string[] = [],
    query = "s1",
  ): Promise<{ code: number; out: string; clients: (string | undefined)[] }> {
    const machine = fakeMachine(sandboxes, [["s1", 300, "waiting"]], NOW, { env: { TMUX: "/tmp/tmux-b/sock,1,0", TMUX_PANE: "%5" } });
    const clients: (string | undefined)[] = [];
    const recorder = registerBackend<Terminal>({
      id: "recorder",
      displayName: "recording backend",
      detect: (terminal) => (terminal.env.TMUX_PANE ? terminal : undefined),
      describe: () => "pane %5",
      focus: async (_terminal, context) => {
        clients.push(context.client);
        return { located: true, target: "pane %5", selection: done("selected"), activation: done("shown") };
      },
    });
    const calls: (readonly string[])[] = [];
    const run: Runner = async (file, args) => {
      calls.push([file, ...args]);
      return { ok: true, code: 0, stdout: CLIENTS.map((client) => `${client.tty}\t${client.pid}`).join("\n"), stderr: "" };
    };
    const out: string[] = [];
    const context: CliContext & FocusServiceContext = { ...machine, processes, run, environOf, backends: [recorder] };
    const code = await runCli(["focus", "--json", "--local", "--ssh-from", port, ...extra, "--", query], context, {
      stdout: (text) => out.push(text),
      stderr: (text) => out.push(text),
      color: false,
      columns: 200,
    });
    if (calls.length > 0)
      expect(calls).toEqual([["tmux", "-u", "-S", "/tmp/tmux-b/sock", "list-clients", "-F", "#{client_tty}\t#{client_pid}"]]);
    return { code, out: out.join("\n"), clients };
  }

  it("pins the focus to the client that came in over that connection (its own SSH_CONNECTION or its login's)", async () => {
    const { code, out, clients } = await focus("50000");
    expect(code).toBe(0);
    expect(clients).toEqual(["/dev/pts/1"]);
    expect((await focus("50001")).clients).toEqual(["/dev/pts/2"]);
    expect(JSON.parse(out) as SshFocusResult).toMatchObject({
      state: "complete",
      ssh_client: { state: "matched", port: 50000, tty: "/dev/pts/1" },
    });
  });

  it("no client from that port: says so and focuses as without the option (--client if given)", async () => {
    const { out, clients } = await focus("40000", ["--client", "/dev/pts/3"]);
    expect(clients).toEqual(["/dev/pts/3"]);
    const result = JSON.parse(out) as SshFocusResult;
    expect(result.ssh_client).toMatchObject({ state: "none", tty: "" });
    expect(result.ssh_client.detail).toContain("chosen as without --ssh-from");
  });

  it("a query no session matches: not found, no client looked for, nothing focused", async () => {
    const { code, out, clients } = await focus("50000", [], "no-such-session");
    expect(code).toBe(3);
    expect(clients).toEqual([]);
    expect(JSON.parse(out) as SshFocusResult).toMatchObject({
      state: "not-found",
      ssh_client: { state: "unknown", port: 50000, tty: "", detail: 'no session matches "no-such-session"' },
    });
  });

  it("refuses a port that is not a number, before anything runs", async () => {
    const { code, out, clients } = await focus("22; reboot");
    expect(code).toBe(2);
    expect(out).toContain("--ssh-from takes a port number (1-65535)");
    expect(clients).toEqual([]);
  });
});
