// The picker across SSH hosts, over fake terminal streams and the fake ssh of test/fake-hosts.ts (mocked transport,
// real remote output and quoting): local rows paint before any host answers, a host's rows join when its read
// returns, an unreachable host is one line, a host's rows naming another host are refused, Enter focuses across the hop.
import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { fakeMachine, fakeSsh, type FakeMachine, type SshCall } from "../../test/fake-hosts.ts";
import type { Sandbox } from "../../test/sandbox.ts";
import type { RunResult, Runner } from "../core/exec.ts";
import { addHost } from "../hosts/edit.ts";
import { runPicker, type PickerContext, type PickerTerminal } from "../picker/tui.ts";
import type { CliContext } from "./context.ts";
import { focusHostRow, pickerHosts } from "./pick-hosts.ts";
import { runCli } from "./run.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const sandboxes: Sandbox[] = [];
afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));

function fakeTerminal() {
  let written = "";
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  const output = Object.assign(new Writable({ write: (chunk, _encoding, next) => ((written += String(chunk)), next()) }), {
    isTTY: true,
    columns: 140,
    rows: 20,
  });
  // The last frame: everything after the last cursor-home.
  return { terminal: { input, output } as unknown as PickerTerminal, input, screen: () => written.slice(written.lastIndexOf("\u001b[H")) };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 5000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** This machine with one running session, and `hosts` configured ([name, destination]). */
function here(hosts: [string, string][], sshRun: Runner): CliContext {
  const context = fakeMachine(sandboxes, [["local-run", 100, "running"]], NOW);
  for (const [name, destination] of hosts) expect(addHost(context.env, name, destination).ok).toBe(true);
  return { ...context, sshRun };
}

function picker(context: CliContext): { exit: ReturnType<typeof runPicker>; input: PassThrough; screen: () => string } {
  const { terminal, input, screen } = fakeTerminal();
  const deps: PickerContext = {
    stateDir: context.stateDir,
    processes: context.processes,
    listProcesses: async () => [],
    focus: async (row) => {
      const result = await focusHostRow(row, { ...context, listProcesses: async () => [] });
      if (!result) throw new Error("not a host row");
      return result;
    },
    prune: async () => 0,
    capture: async () => ({ note: "no preview" }),
    readDialog: async () => ({ ok: false, detail: "no dialog here" }),
    answer: async () => "nothing sent",
    now: () => NOW,
    home: "/nonexistent-home",
    color: false,
    hosts: async () => pickerHosts(context),
    hostsMs: 60_000,
  };
  return { exit: runPicker(terminal, deps), input: input as PassThrough, screen };
}

const remote = (sessions: [string, number, "waiting" | "idle" | "running"][]): FakeMachine => ({
  context: fakeMachine(sandboxes, sessions, NOW),
});

describe("the picker across hosts", () => {
  it("paints this machine's rows while a host is slow; the host's rows join, with their host, when it answers", async () => {
    let release: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const ssh = fakeSsh({ devbox: remote([["remote-wait", 200, "waiting"]]) });
    const slow: Runner = async (file, args, options) => {
      await answered;
      return ssh(file, args, options);
    };
    const { exit, input, screen } = picker(here([["devbox", "devbox"]], slow));
    await until(() => screen().includes("work/local-run"), "the local row");
    expect(screen()).not.toContain("remote-wait");
    expect(screen()).toContain("1 session");
    release();
    await until(() => screen().includes("work/remote-wait"), "the host's row");
    const lines = screen().split("\r\n");
    // The waiting remote row sorts first and names its host; the local row's host column is empty, and the selection
    // stays on the row it was on.
    expect(lines[2]).toMatch(/^1 ● waiting devbox claude +work\/remote-wait/);
    expect(lines[3]).toMatch(/^2>▶ running {8}claude +work\/local-run/);
    input.write("\u0003");
    expect(await exit).toEqual({ kind: "cancelled" });
  });

  it("shows an unreachable host as one line and keeps every other row", async () => {
    const ssh = fakeSsh({
      devbox: remote([["remote-idle", 300, "idle"]]),
      gone: { context: fakeMachine(sandboxes, [], NOW), unreachable: "ssh: connect to host gone port 22: No route to host" },
    });
    const { exit, input, screen } = picker(
      here(
        [
          ["devbox", "devbox"],
          ["gone", "gone"],
        ],
        ssh,
      ),
    );
    await until(() => screen().includes("gone: unreachable"), "the unreachable line");
    await until(() => screen().includes("work/remote-idle"), "the reachable host's row");
    expect(screen()).toContain("? gone: unreachable (ssh: connect to host gone port 22: No route to host)");
    expect(screen()).toContain("work/local-run");
    input.write("\u0003");
    await exit;
  });

  it("refuses rows a host sends for another host (or for this machine's empty host it did not mean)", async () => {
    const honest = fakeMachine(sandboxes, [["remote-wait", 200, "waiting"]], NOW);
    const out: string[] = [];
    await runCli(["list", "--json", "--local"], honest, {
      stdout: (text) => out.push(text),
      stderr: () => undefined,
      color: false,
      columns: 200,
    });
    const listing = JSON.parse(out.join("\n")) as { sessions: Record<string, unknown>[] };
    const forged = { sessions: listing.sessions.map((row) => ({ ...row, host: "other", cwd: "/work/forged" })) };
    const answer: RunResult = { ok: true, code: 0, stdout: JSON.stringify(forged), stderr: "" };
    const { exit, input, screen } = picker(here([["devbox", "devbox"]], fakeSsh({ devbox: { context: honest, answer } })));
    await until(() => screen().includes("devbox: 1 row(s) left out"), "the refused row's note");
    expect(screen()).not.toContain("forged");
    expect(screen()).not.toContain("other");
    input.write("\u0003");
    await exit;
  });

  it("Enter on a host's row focuses it as `focus HOST:ID` does: the host's focus runs with the row's id", async () => {
    const calls: SshCall[] = [];
    const devbox = remote([["remote-wait", 200, "waiting"]]);
    const focusAnswer = (words: readonly string[]): RunResult | undefined =>
      words[1] === "focus"
        ? {
            ok: true,
            code: 0,
            stdout: JSON.stringify({ state: "complete", target: "tmux pane %5", detail: "", selection: {} }),
            stderr: "",
          }
        : undefined;
    const { exit, input, screen } = picker(here([["devbox", "devbox"]], fakeSsh({ devbox: { ...devbox, answers: focusAnswer } }, calls)));
    await until(() => screen().includes("work/remote-wait"), "the host's row");
    input.write("\u001b1"); // Alt-1: the first row, the host's waiting session
    const result = await exit;
    expect(result.kind).toBe("focused");
    if (result.kind !== "focused" || !("host" in result.result)) throw new Error("expected a focus across the hop");
    const id = result.result.session.id;
    expect(id).toMatch(/^fleet:/);
    expect(result.result).toMatchObject({
      host: "devbox",
      remote: { state: "complete", selected: true },
      local: { state: "no-connection" },
    });
    expect(result.result.state).toBe("partial");
    expect(calls.map((call) => call.words)).toEqual([
      ["tongs-agents", "list", "--json", "--local"],
      ["tongs-agents", "focus", "--json", "--local", "--", id],
    ]);
  });
});
