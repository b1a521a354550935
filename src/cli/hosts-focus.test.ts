// focus across an SSH hop, mocked at both ends: a fake ssh whose host runs our CLI (test/fake-hosts.ts), a fake local
// ssh process, and a recording focus backend. What is proven: which local terminal is chosen (exact evidence), the
// remote command's words, and how the two levels combine into one result.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import { fakeSsh, type SshCall } from "../../test/fake-hosts.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { canonicalId, digestOf } from "../core/identity.ts";
import type { Terminal } from "../core/schema.ts";
import { done, registerBackend } from "../../backends/contract.ts";
import { addHost } from "../hosts/edit.ts";
import type { HostFocusResult } from "../hosts/focus.ts";
import { ensureStateDirs } from "../store/paths.ts";
import { writeRecord } from "../store/records.ts";
import type { CliContext } from "./context.ts";
import { runCli, type CliIo } from "./run.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const sandboxes: Sandbox[] = [];
afterEach(() => sandboxes.splice(0).forEach((sandbox) => sandbox.cleanup()));

/** A waiting Pi session record of process `pid` (fakeProcess's start token), in `sandbox`'s state. */
function writeWaiting(sandbox: Sandbox, sessionId: string, pid: number, cwd: string, ageMs: number): string {
  const { sessionsDir } = ensureStateDirs(sandbox.stateDir);
  const id = canonicalId("pi", sessionId, `pid:${pid}`);
  const stamp = new Date(NOW - ageMs).toISOString();
  writeRecord(sessionsDir, digestOf(id) as string, {
    schema_version: 1,
    canonical_id: id,
    harness: "pi",
    session_id: sessionId,
    instance_id: `pid:${pid}`,
    identity: "process",
    pid,
    process_start: `linux:boot:${pid}00`,
    cwd,
    status: "waiting",
    detail: "",
    tool: "",
    sequence: null,
    arrival_sequence: 1,
    last_event: "pi.x",
    created_at: stamp,
    updated_at: stamp,
    status_changed_at: stamp,
    // A tmux socket that does not exist: the remote CLI must never reach a real tmux server of this machine.
    terminal: { env: { TMUX: `${sandbox.root}/no-tmux-server,1,0`, TMUX_PANE: "%5" } },
  });
  return id;
}

function remoteMachine(): { context: CliContext; id: string } {
  const sandbox = makeSandbox();
  sandboxes.push(sandbox);
  const id = writeWaiting(sandbox, "remote-session", 200, "/srv/app", 60_000);
  return {
    id,
    context: {
      env: sandbox.env,
      stateDir: sandbox.stateDir,
      cwd: sandbox.root,
      processes: fakeProcessSource([fakeProcess(200, 1, "pi")]),
      listProcesses: async () => [],
      now: () => NOW,
    },
  };
}

let out: string[];
const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => out.push(text), color: false, columns: 160 };
let calls: SshCall[];
let focused: Terminal[];
let here: CliContext & {
  backends: ReturnType<typeof registerBackend>[];
  environOf: (pid: number) => Promise<Record<string, string>>;
  procRoot: string;
};

/** A fake /proc where the local ssh (pid 900) holds one established TCP connection from local port 50000 (0xC350). */
function fakeProcRoot(sandbox: Sandbox): string {
  const root = join(sandbox.root, "proc");
  mkdirSync(join(root, "900", "fd"), { recursive: true });
  mkdirSync(join(root, "900", "net"));
  symlinkSync("socket:[4242]", join(root, "900", "fd", "3"));
  const head = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
  writeFileSync(
    join(root, "900", "net", "tcp"),
    `${head}\n   0: 0A590002:C350 0A590003:0016 01 00000000:00000000 00:00000000 00000000 0 0 4242 1\n`,
  );
  return root;
}
let remote: ReturnType<typeof remoteMachine>;

const remoteFocus = (words: readonly string[]) =>
  words[1] === "focus"
    ? {
        ok: true,
        code: 0,
        stdout: JSON.stringify({ state: "complete", target: "tmux pane %5 in session work", detail: "", selection: {} }),
        stderr: "",
      }
    : undefined;

beforeEach(() => {
  out = [];
  calls = [];
  focused = [];
  const sandbox = makeSandbox();
  sandboxes.push(sandbox);
  remote = remoteMachine();
  addHost(sandbox.env, "devbox", "me@devbox");
  const recorder = registerBackend<Terminal>({
    id: "recorder",
    displayName: "recording backend",
    detect: (terminal) => (terminal.env.KITTY_WINDOW_ID ? terminal : undefined),
    describe: (terminal) => `kitty window ${terminal.env.KITTY_WINDOW_ID}`,
    focus: async (terminal) => {
      focused.push(terminal);
      return {
        located: true,
        target: `kitty window ${terminal.env.KITTY_WINDOW_ID}`,
        selection: done("selected"),
        activation: done("raised"),
      };
    },
  });
  const local = [
    fakeProcess(900, 1, "ssh", ["ssh", "-t", "me@devbox", "tmux", "attach"], { tty: "/dev/pts/9" }),
    fakeProcess(901, 1, "ssh", ["ssh", "other"]),
  ];
  here = {
    env: sandbox.env,
    stateDir: sandbox.stateDir,
    cwd: sandbox.root,
    processes: fakeProcessSource(local),
    listProcesses: async () => local.map((row) => ({ pid: row.pid, name: row.comm })),
    now: () => NOW,
    sshRun: fakeSsh({ "me@devbox": { context: remote.context, answers: remoteFocus } }, calls),
    backends: [recorder],
    environOf: async (pid): Promise<Record<string, string>> =>
      pid === 900 ? { KITTY_WINDOW_ID: "3", KITTY_LISTEN_ON: "unix:/tmp/k", HOME: "/h" } : {},
    procRoot: fakeProcRoot(sandbox),
  };
});

async function focusJson(...args: string[]): Promise<{ code: number; result: HostFocusResult }> {
  out = [];
  const code = await runCli(["focus", "--json", ...args], here, io);
  return { code, result: JSON.parse(out.join("\n")) as HostFocusResult };
}

describe("focus across an SSH hop", () => {
  it("HOST:query brings forward the terminal that runs ssh to that host, then focuses the pane there", async () => {
    const { code, result } = await focusJson("devbox:remote-sess");
    expect(code).toBe(0);
    expect(result).toMatchObject({
      state: "complete",
      host: "devbox",
      session: { id: remote.id, harness: "pi", cwd: "/srv/app" },
      local: { state: "complete", ssh_pid: 900, ssh_port: { ok: true, port: 50000 } },
      remote: { state: "complete", target: "tmux pane %5 in session work" },
    });
    expect(focused).toEqual([{ env: { KITTY_WINDOW_ID: "3", KITTY_LISTEN_ON: "unix:/tmp/k" }, tty: "/dev/pts/9" }]);
    expect(calls.map((call) => call.words)).toEqual([
      ["tongs-agents", "list", "--json", "--local", "--all"],
      ["tongs-agents", "focus", "--json", "--local", "--ssh-from", "50000", "--", remote.id],
    ]);
  });

  it("the host names the client it moved (its own CLI answering --ssh-from)", async () => {
    here = { ...here, sshRun: fakeSsh({ "me@devbox": { context: remote.context } }, calls) };
    const { result } = await focusJson("devbox:remote");
    // The fake host has no tmux server at the recorded socket: it says it could not tell, and focuses as before.
    expect(result.remote.client).toMatchObject({ state: "unknown", tty: "" });
    expect(result.remote.client?.detail).toContain("tmux list-clients failed");
    expect(result.detail).toContain("client: tmux list-clients failed");
  });

  it("a host whose tongs-agents does not take --ssh-from (older) is asked again without it, and the result says so", async () => {
    const older = (words: readonly string[]) =>
      words.includes("--ssh-from")
        ? { ok: false, code: 2, stdout: "", stderr: "tongs-agents: Unknown option '--ssh-from'\nusage: ..." }
        : remoteFocus(words);
    here = { ...here, sshRun: fakeSsh({ "me@devbox": { context: remote.context, answers: older } }, calls) };
    const { result } = await focusJson("devbox:remote");
    expect(result).toMatchObject({ state: "complete", remote: { state: "complete", client: { state: "unknown" } } });
    expect(result.remote.client?.detail).toBe("the tongs-agents on devbox does not take --ssh-from (older)");
    expect(calls.filter((call) => call.words[1] === "focus").map((call) => call.words.slice(2))).toEqual([
      ["--json", "--local", "--ssh-from", "50000", "--", remote.id],
      ["--json", "--local", "--", remote.id],
    ]);
  });

  it("when the connection's port cannot be told exactly, the host is asked as before and the result says why", async () => {
    here = { ...here, procRoot: join(here.procRoot, "empty") };
    const { result } = await focusJson("devbox:remote");
    expect(result.local.ssh_port).toMatchObject({ ok: false });
    expect(result.local.detail).toContain("which client there is ours is not known exactly");
    const focusCall = calls.find((call) => call.words[1] === "focus");
    expect(focusCall?.words).toEqual(["tongs-agents", "focus", "--json", "--local", "--", remote.id]);
  });

  it("the host selecting the pane but unable to raise its client's terminal (the ssh session) is complete across the hop", async () => {
    const answer = (state: string, succeeded: boolean) => (words: readonly string[]) =>
      words[1] === "focus"
        ? {
            ok: state === "complete",
            code: state === "complete" ? 0 : 5,
            stdout: JSON.stringify({ state, target: "tmux pane %5 in session work", detail: "", selection: { succeeded } }),
            stderr: "",
          }
        : undefined;
    here = { ...here, sshRun: fakeSsh({ "me@devbox": { context: remote.context, answers: answer("partial", true) } }, calls) };
    const selected = await focusJson("devbox:remote");
    expect(selected.result).toMatchObject({
      state: "complete",
      local: { state: "complete" },
      remote: { state: "partial", selected: true },
    });
    here = { ...here, sshRun: fakeSsh({ "me@devbox": { context: remote.context, answers: answer("partial", false) } }, calls) };
    const notSelected = await focusJson("devbox:remote");
    expect(notSelected.result).toMatchObject({ state: "partial", remote: { state: "partial", selected: false } });
  });

  it("a query nothing here matches is looked for on the hosts", async () => {
    const { result } = await focusJson("/srv/app");
    expect(result).toMatchObject({ state: "complete", host: "devbox" });
  });

  it("without a local connection: partial, says so and prints the ssh command that would attach", async () => {
    here = { ...here, listProcesses: async () => [] };
    const { code, result } = await focusJson("devbox:remote");
    expect(code).toBe(5);
    expect(result.local).toMatchObject({ state: "no-connection", attach: "ssh -t me@devbox tmux attach" });
    expect(result.local.detail).toContain("attach with: ssh -t me@devbox tmux attach");
    expect(result.remote.state).toBe("complete");
  });

  it("reports the host's own focus result when it cannot focus (the real remote CLI answering)", async () => {
    here = { ...here, sshRun: fakeSsh({ "me@devbox": { context: remote.context } }, calls) };
    const { result } = await focusJson("devbox:remote");
    // The remote CLI ran for real on the fake host: no tmux server there, so its tmux backend cannot select the pane.
    expect(result.remote.state).not.toBe("complete");
    expect(result.remote.report.host).toBe("devbox");
    expect(result.state).toBe("partial");
  });

  it("an unreachable host: not found, naming the host it could not read", async () => {
    here = { ...here, sshRun: fakeSsh({}, calls) };
    out = [];
    expect(await runCli(["focus", "nothing-here"], here, io)).toBe(3);
    expect(out.join("\n")).toContain("not read: devbox (ssh: Could not resolve hostname me@devbox");
  });
});

describe("next across hosts", () => {
  const nextJson = async (): Promise<{ id: string | undefined; host: string | undefined }> => {
    out = [];
    await runCli(["next", "--json"], here, io);
    const result = JSON.parse(out.join("\n")) as { host?: string; session: { id: string } | null };
    return { id: result.session?.id, host: result.host };
  };

  it("goes to a host's session when nothing here needs the user, through focus across the hop", async () => {
    const { code, result } = await (async () => {
      out = [];
      const exit = await runCli(["next", "--json"], here, io);
      return { code: exit, result: JSON.parse(out.join("\n")) as HostFocusResult };
    })();
    expect(result).toMatchObject({ state: "complete", host: "devbox", session: { id: remote.id }, local: { ssh_pid: 900 } });
    expect(code).toBe(0);
    expect(calls.map((call) => call.words[1])).toEqual(["list", "focus"]);
  });

  it("cycles through equally urgent sessions here and on the hosts", async () => {
    const local = makeSandbox();
    sandboxes.push(local);
    const localId = writeWaiting(local, "local-session", 300, "/home/me/app", 30_000);
    here = {
      ...here,
      stateDir: local.stateDir,
      processes: fakeProcessSource([fakeProcess(300, 1, "pi"), fakeProcess(900, 1, "ssh", ["ssh", "-t", "me@devbox", "tmux", "attach"])]),
    };
    // Both wait: the most recent change first (here, 30 s ago), then the host's (60 s ago), then here again.
    expect(await nextJson()).toEqual({ id: localId, host: undefined });
    expect(await nextJson()).toEqual({ id: remote.id, host: "devbox" });
    expect(await nextJson()).toEqual({ id: localId, host: undefined });
  });
});
