// Live: the keypress server (docs/server.md) as a user meets it: the built CLI, real agent panes in a private tmux
// server, a real attached client. Every served verb answers exactly what the same verb answers in its own process,
// through the server (its count of served commands says so), in the caller's environment; a server that died, was
// stopped or removed, leaves the CLI answering as before.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseProcStat } from "../../src/core/proc.ts";
import type { SessionView } from "../../src/fleet/view.ts";
import { socketPathOf } from "../../src/server/protocol.ts";
import { writeFileAtomic } from "../../src/store/records.ts";
import {
  KEY_CLIENT,
  keypressServerStatus,
  ROOT,
  runCliProcess,
  runKeyClient,
  runNode,
  runProgram,
  type ProcessResult,
} from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor, type AgentPane, type AttachedClient } from "./tmux-lab.ts";

/** How many connections wait, not yet accepted, at a listening Unix socket (`ss`, iproute2: its Recv-Q). */
function pendingConnections(path: string): number {
  const line = execFileSync("ss", ["-xlnH", "src", path], { encoding: "utf8" }).trim();
  const fields = line.split(/\s+/);
  if (fields[1] !== "LISTEN") throw new Error(`no listening socket at ${path}: ${JSON.stringify(line)}`);
  return Number(fields[2]);
}

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "server");
});
afterEach(async () => {
  // Whatever a test left running is stopped through its own socket.
  await runCliProcess(["serve", "--stop"], sandbox.env);
  lab.stop();
  sandbox.cleanup();
});

const perProcess = () => ({ ...sandbox.env, TONGS_AGENTS_SERVER: "off" });
const socket = () => join(sandbox.stateDir, "server", "socket");

const serverStatus = () => keypressServerStatus(sandbox.env);

/** What a user compares: exit code and both outputs, with ages ("3s", "2s ago", "said by: hook, 4 s ago",
 * `"state_age_s": 3`), which tick between two runs, as N, and a table's padding as two spaces (an age going from 9s to
 * 10s between the runs widens its column). */
const ageless = (text: string) =>
  text
    .replace(/\b\d+( ?)(s|m|min|h|d)\b/g, "N$1$2")
    .replace(/("state_age_s": ?)\d+/g, "$1N")
    .replace(/ {2,}/g, "  ");
const seen = (run: ProcessResult) => ({ code: run.code, stdout: ageless(run.stdout), stderr: ageless(run.stderr) });

async function fleet(): Promise<{ waiting: AgentPane; running: AgentPane; home: AgentPane; client: AttachedClient }> {
  const home = lab.newSession("home");
  const running = lab.newSession("build", { events: ["session-start", "prompt-submit"] });
  const waiting = lab.newSession("review", { events: ["session-start", "prompt-submit", "permission-request"] });
  await lab.ready(home, running, waiting);
  const client = await lab.attach("home");
  return { waiting, running, home, client };
}

/** A process that has not ended (a zombie has ended: only its parent's wait is left). */
function alive(pid: number | undefined): boolean {
  const state = existsSync(`/proc/${pid}/stat`) ? parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"))?.state : undefined;
  return state !== undefined && state !== "Z" && state !== "X";
}

/** The processes whose parent is `pid`, by their /proc stat. */
function childrenOf(pid: number): { pid: number; comm: string }[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      let stat: ReturnType<typeof parseProcStat>;
      try {
        stat = parseProcStat(readFileSync(`/proc/${name}/stat`, "utf8"));
      } catch {
        return []; // ended meanwhile
      }
      return stat?.ppid === pid ? [{ pid: Number(name), comm: stat.comm }] : [];
    });
}

const shows = (client: AttachedClient) => lab.clients().find((attached) => attached.tty === client.tty)?.pane;

describe("the keypress server, live", () => {
  it("answers every served verb exactly as its own process does, through the server, and moves the real client", async () => {
    const { waiting, running, home, client } = await fleet();
    const started = await runCliProcess(["serve", "--detach"], sandbox.env);
    expect(started.stdout).toMatch(/server started \(pid \d+, build [0-9a-f]{16}/);
    const first = serverStatus();
    expect(first).toMatchObject({ running: true, served: 0 });

    // Each pair: the verb in its own process, then through the server; the same words, exit codes and outputs.
    const verbs: string[][] = [
      ["list", "--json"],
      ["list"],
      ["list", "--all"],
      ["status", "--format", "tmux"],
      ["status", "--format", "plain"],
      ["status", "--format", "json"],
      ["show", waiting.sessionId, "--json"],
      ["explain", running.sessionId],
      ["show", "no-such-session"],
      ["focus", "no-such-session", "--json"],
      ["show"],
      ["list", "--no-such-option"],
    ];
    for (const args of verbs) {
      const alone = await runCliProcess(args, perProcess());
      const served = await runCliProcess(args, sandbox.env);
      expect(seen(served), args.join(" ")).toEqual(seen(alone));
    }
    expect(serverStatus().served).toBe(verbs.length);

    // The keys: next lands on the waiting session, focus on the named one; each as its own process would say it.
    const nextAlone = await runCliProcess(["next", "--client", client.tty, "--json"], perProcess());
    expect(shows(client)).toBe(waiting.pane);
    lab.tmux(lab.inner, "switch-client", "-c", client.tty, "-t", home.pane);
    const nextServed = await runCliProcess(["next", "--client", client.tty, "--json"], sandbox.env);
    expect(shows(client)).toBe(waiting.pane);
    expect(seen(nextServed)).toEqual(seen(nextAlone));

    const focusServed = await runCliProcess(["focus", running.sessionId, "--client", client.tty], sandbox.env);
    expect(focusServed.code).toBe(0);
    expect(shows(client)).toBe(running.pane);
    lab.tmux(lab.inner, "switch-client", "-c", client.tty, "-t", home.pane);
    const focusAlone = await runCliProcess(["focus", running.sessionId, "--client", client.tty], perProcess());
    expect(shows(client)).toBe(running.pane);
    expect(seen(focusServed)).toEqual(seen(focusAlone));
    expect(serverStatus().served).toBe(verbs.length + 2);

    // Verbs it does not serve run in their own process with a server up (pick without a terminal says so).
    const pick = await runCliProcess(["pick"], sandbox.env);
    expect(pick.stderr).toMatch(/needs a terminal/);
    expect(serverStatus().served).toBe(verbs.length + 2);
  });

  it("answers the shell client's verbs exactly as their own processes do, and its keys move the real client", async () => {
    const { waiting, running, home, client } = await fleet();
    await runCliProcess(["serve", "--detach"], sandbox.env);
    const verbs: string[][] = [
      ["status", "--format", "tmux"],
      ["status", "--format", "json"],
      ["show", waiting.sessionId],
      ["explain", running.sessionId, "--json"],
      ["show", "no-such-session"],
      ["focus", "no-such-session", "--json"],
      ["show", "--no-such-option"],
      // Handed to the Node client (long output), which the server answers on its socket.
      ["list", "--json"],
    ];
    for (const args of verbs) {
      const alone = await runCliProcess(args, perProcess());
      const served = await runKeyClient(args, sandbox.env);
      expect(seen(served), args.join(" ")).toEqual(seen(alone));
    }
    const nextAlone = await runCliProcess(["next", "--client", client.tty, "--json"], perProcess());
    expect(shows(client)).toBe(waiting.pane);
    lab.tmux(lab.inner, "switch-client", "-c", client.tty, "-t", home.pane);
    const nextServed = await runKeyClient(["next", "--client", client.tty, "--json"], sandbox.env);
    expect(shows(client)).toBe(waiting.pane);
    expect(seen(nextServed)).toEqual(seen(nextAlone));
    lab.tmux(lab.inner, "switch-client", "-c", client.tty, "-t", home.pane);
    expect((await runKeyClient(["focus", running.sessionId, "--client", client.tty], sandbox.env)).code).toBe(0);
    expect(shows(client)).toBe(running.pane);
    // Every one of them was served, all but `list` through the FIFO.
    expect(serverStatus()).toMatchObject({ served: verbs.length + 2, served_shell: verbs.length + 1 });
    // Under bash as /bin/sh (Fedora, Arch) too, run after run: nothing more on stderr (bash reports a background job
    // killed by a signal other than TERM), the same answer.
    const status = await runCliProcess(["status", "--format", "plain"], perProcess());
    for (let run = 0; run < 20; run++) {
      const served = await runProgram("bash", ["--posix", KEY_CLIENT, process.execPath, "status", "--format", "plain"], {
        env: sandbox.env,
      });
      expect(seen(served)).toEqual(seen(status));
    }
    expect(readdirSync(join(sandbox.stateDir, "server")).filter((name) => name.startsWith("reply."))).toEqual([]);
  });

  it("a stopped server (^Z): the shell client's verb runs in its own process at once, never asking the socket", async () => {
    await fleet();
    await runCliProcess(["serve", "--detach"], sandbox.env);
    const { pid } = serverStatus();
    const alone = await runCliProcess(["status", "--format", "plain"], perProcess());
    process.kill(pid ?? 0, "SIGSTOP");
    try {
      const served = await runKeyClient(["status", "--format", "plain"], sandbox.env);
      expect(seen(served)).toEqual(seen(alone));
      // The Node client asking the stopped server would wait out its 2 s bound first. It never connected: a
      // connection made to a server that cannot accept stays in the socket's backlog (ss: Recv-Q of the listening
      // socket), even after the client closed it. Proven by the kernel's count, not by a wall time on a loaded machine.
      expect(pendingConnections(socketPathOf(sandbox.stateDir)), "connections waiting at the stopped server's socket").toBe(0);
      console.log(`the shell client answered in ${Math.round(served.ms)} ms with the server stopped`);
    } finally {
      process.kill(pid ?? 0, "SIGCONT");
    }
    expect(serverStatus()).toMatchObject({ served: 0 });
  });

  it("shows each change to a record at the next key (replaced as a hook replaces it, or rewritten in place); its programs come from its shell", async () => {
    const { waiting, client } = await fleet();
    await runCliProcess(["serve", "--detach"], sandbox.env);
    const show = async () => JSON.parse((await runCliProcess(["show", waiting.sessionId, "--json"], sandbox.env)).stdout) as SessionView;
    const { id } = await show();
    await show(); // now the server's watch vouches for the unchanged record
    const path = join(sandbox.stateDir, "sessions", `${id.split(":").at(-1)}.json`);
    const writes: [string, (text: string) => void][] = [
      ["replaced", (text) => expect(writeFileAtomic(path, text)).toEqual({ ok: true })],
      ["in place", (text) => writeFileSync(path, text)],
    ];
    for (const [how, write] of writes) {
      write(JSON.stringify({ ...(JSON.parse(readFileSync(path, "utf8")) as object), detail: `changed: ${how}` }));
      expect((await show()).detail).toBe(`changed: ${how}`);
    }
    expect(serverStatus().served).toBe(4);

    // The focus's tmux came from the server's resident shell, which stays for the next key.
    const focused = await runCliProcess(["focus", waiting.sessionId, "--client", client.tty], sandbox.env);
    expect(focused.code).toBe(0);
    expect(shows(client)).toBe(waiting.pane);
    const { pid } = serverStatus();
    const shells = childrenOf(pid as number).filter((child) => child.comm === "sh");
    expect(shells).toHaveLength(1);
  });

  it("runs each verb in the caller's environment: the caller's HOME shortens the paths it lists", async () => {
    await fleet();
    await runCliProcess(["serve", "--detach"], sandbox.env);
    // The sessions' cwd is the sandbox root, under this HOME only when HOME is the root.
    const asRoot = { ...sandbox.env, HOME: sandbox.root };
    const served = await runCliProcess(["list"], asRoot);
    expect(served.stdout).toContain("~ ");
    expect(seen(served)).toEqual(seen(await runCliProcess(["list"], { ...asRoot, TONGS_AGENTS_SERVER: "off" })));
    expect((await runCliProcess(["list"], sandbox.env)).stdout).not.toContain("~ ");
    expect(serverStatus().served).toBe(2);
  });

  it("a server killed outright leaves a stale socket: the CLI answers alone, and --detach replaces it", async () => {
    await fleet();
    await runCliProcess(["serve", "--detach"], sandbox.env);
    const { pid } = serverStatus();
    if (pid === undefined) throw new Error("no server is running");
    process.kill(pid, "SIGKILL");
    await waitFor(() => !alive(pid), "the server to be gone");
    expect(existsSync(socket())).toBe(true);
    const alone = await runCliProcess(["status", "--format", "plain"], perProcess());
    expect(seen(await runCliProcess(["status", "--format", "plain"], sandbox.env))).toEqual(seen(alone));
    expect((await runCliProcess(["serve", "--status"], sandbox.env)).code).toBe(3);
    const again = await runCliProcess(["serve", "--detach"], sandbox.env);
    expect(again.code).toBe(0);
    expect(serverStatus().pid).not.toBe(pid);
  });

  it("after an upgrade in place, the old server is replaced at the first key; a second install leaves it be", async () => {
    // An install of this package with another build id, in its own directory, serving the state dir.
    const ours = (await runCliProcess(["--version"], sandbox.env)).stdout.match(/build ([0-9a-f]{16})/)?.[1] ?? "";
    const install = join(sandbox.root, "install");
    const copyInto = (build: string) => {
      rmSync(join(install, "dist"), { recursive: true, force: true });
      for (const part of ["bin", "dist", "package.json"]) cpSync(join(ROOT, part), join(install, part), { recursive: true });
      for (const file of readdirSync(join(install, "dist"), { recursive: true, encoding: "utf8" }).filter((name) =>
        name.endsWith(".cjs"),
      )) {
        const path = join(install, "dist", file);
        writeFileSync(path, readFileSync(path, "utf8").replaceAll(ours, build));
      }
    };
    const cli = (args: string[], env = sandbox.env) => runNode(join(install, "bin", "tongs-agents.js"), args, { env });
    copyInto("0ld0ld0ld0ld0ld0");
    await cli(["serve", "--detach"]);
    const before = serverStatus();
    expect(before.build).toBe("0ld0ld0ld0ld0ld0");

    // A second install (this checkout, this build) on the same state dir: it answers alone, the server stays.
    const alone = await runCliProcess(["status", "--format", "plain"], perProcess());
    expect(seen(await runCliProcess(["status", "--format", "plain"], sandbox.env))).toEqual(seen(alone));
    expect(serverStatus()).toMatchObject({ pid: before.pid, served: 0 });

    // The install upgraded in place (this build's files where the old ones were): its first key answers alone, the
    // old server stops, and the new build's server is up for the next key.
    copyInto(ours);
    expect(seen(await cli(["status", "--format", "plain"]))).toEqual(seen(alone));
    await waitFor(() => !alive(before.pid), "the old build's server to stop");
    await expect.poll(() => serverStatus().build, { timeout: 15_000, interval: 100 }).toBe(ours);
    expect(seen(await cli(["status", "--format", "plain"]))).toEqual(seen(alone));
    expect(serverStatus().served).toBe(1);
  });

  it("a server whose socket is removed stops by itself; --stop stops it; --detach twice starts one", async () => {
    await runCliProcess(["serve", "--detach"], sandbox.env);
    expect((await runCliProcess(["serve", "--detach"], sandbox.env)).stdout).toMatch(/a server is running/);
    const { pid } = serverStatus();
    rmSync(socket());
    await waitFor(() => !alive(pid), "the server to stop once its socket is gone");

    await runCliProcess(["serve", "--detach"], sandbox.env);
    const second = serverStatus();
    expect((await runCliProcess(["serve", "--stop"], sandbox.env)).stdout).toBe(`tongs-agents: stopped the server (pid ${second.pid})\n`);
    await waitFor(() => !alive(second.pid), "the stopped server's process to end");
    expect(existsSync(socket())).toBe(false);
    expect((await runCliProcess(["serve", "--stop"], sandbox.env)).stdout).toBe("tongs-agents: no server is running\n");
  });
});
