// The hook shim as harnesses run it (bin/tongs-agents-hook.sh under the system's /bin/sh, dash here), with the real
// drainer it starts: real processes, real process trees (fake harness processes with exact names), the real file
// system. Proves order (events applied in the order the harness spawned their hooks, delivered with random delays,
// and when the drainer starts only after they were all queued), identity (from the harness process the shim
// captured, after the harness and the shim's parent exited) and fail-open (exit 0, nothing on stdout or stderr,
// whatever fails).
import { spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claudeSteps, type Step } from "../e2e/lifecycles.ts";
import { canonicalId, digestOf, processInstanceId } from "../src/core/identity.ts";
import { linuxProcessSource } from "../src/core/proc.ts";
import { compareStarts } from "../src/core/spawn-order.ts";
import { ABANDONED_MS, drainPass } from "../src/hook/drainer.ts";
import { HOOK_ENV_KEYS, entryOrder, parseShimEntry, type ShimEntry } from "../src/hook/shim-entry.ts";
import { DD_COPIER_MARK, markShimCopier } from "../src/hook/shim-copier.ts";
import { hookCommand } from "../src/install/command.ts";
import { sessionsDirOf } from "../src/store/paths.ts";
import { readRecord, recordPath } from "../src/store/records.ts";
import { CLI_BIN, HOOK_BIN, ROOT, runNode, startFakeHarness, type FakeHarness, type HookRun } from "./processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

const SHIM = join(ROOT, "bin", "tongs-agents-hook.sh");
const DRAINER = join(ROOT, "bin", "tongs-agents-drainer.cjs");

let sandbox: Sandbox;
const harnesses: FakeHarness[] = [];
beforeEach(() => {
  sandbox = makeSandbox();
  sandbox.env.TONGS_AGENTS_DEBUG = "1";
});
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  sandbox.cleanup();
});

async function harness(name: string): Promise<FakeHarness> {
  const started = await startFakeHarness(name, sandbox);
  harnesses.push(started);
  return started;
}

const spool = () => join(sandbox.stateDir, "incoming");
/** Spooled entries, in spawn order. */
const entries = () =>
  (existsSync(spool()) ? readdirSync(spool()) : [])
    .filter((name) => entryOrder(name) !== undefined)
    .sort((a, b) => compareStarts(entryOrder(a), entryOrder(b)));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until the drainer took every queued event (never sleep-and-hope: the queue says when). */
async function spoolDrained(timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (entries().length > 0) {
    if (Date.now() > deadline) throw new Error(`spool not drained: ${entries().join(", ")}`);
    await sleep(20);
  }
}

/** The process copying the payload of spooled entry `name`, as its shim wrote it down. */
function readerOf(name: string): ShimEntry["reader"] {
  const read = parseShimEntry(readFileSync(join(spool(), name)));
  return read.ok ? read.entry.reader : undefined;
}

/** Is that process still running (not exited, not a zombie)? */
function copying(reader: ShimEntry["reader"]): boolean {
  if (reader === undefined) return false;
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${reader.pid}/stat`, "latin1"));
  } catch {
    return false;
  }
}

/** Wait until the copy of stdin of the newest entry has exited: the harness closed stdin, so the payload is whole. */
async function copied(timeoutMs = 20_000): Promise<void> {
  const newest = entries().at(-1) as string;
  const reader = readerOf(newest);
  const deadline = Date.now() + timeoutMs;
  while (copying(reader)) {
    if (Date.now() > deadline) throw new Error(`the copy of stdin of ${newest} still runs`);
    await sleep(20);
  }
}

/**
 * Drain passes until none waits (a loaded machine may need more than one: a copy of stdin not yet scheduled, a lock
 * bound run out): how many entries were done in all.
 */
async function drainAll(context: Parameters<typeof drainPass>[0], passes = 40): Promise<number> {
  let done = 0;
  for (let pass = 0; pass < passes; pass++) {
    const result = await drainPass(context);
    done += result.done;
    if (result.waiting === 0) return done;
    await sleep(50);
  }
  throw new Error(`still waiting after ${passes} passes: ${entries().join(", ")}`);
}

/** What the drainer applied, in the order it applied it (it logs each event before the event's entry goes). */
function applied(canonical: string): string[] {
  const path = join(sandbox.stateDir, "hook.log");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { drainer?: boolean; action?: string; event?: string; canonicalId?: string })
    .filter((entry) => entry.drainer === true && entry.action === "written" && entry.canonicalId === canonical)
    .map((entry) => entry.event as string);
}

async function identityOf(pid: number): Promise<string> {
  return processInstanceId(pid, (await linuxProcessSource().basics(pid))?.startToken as string);
}

const recordAt = (canonical: string) => readRecord(recordPath(sessionsDirOf(sandbox.stateDir), digestOf(canonical) as string));

const shimCommand = (alias: string, node = process.execPath) => hookCommand({ node, hook: HOOK_BIN, alias, agent: "claude", mode: "shim" });

function expectSilentSuccess(run: Pick<HookRun, "code" | "stdout" | "stderr">): void {
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("");
  expect(run.stderr).toBe("");
}

const expected = (step: Step) => ({ status: step.expect.status, detail: step.expect.detail, last_event: step.expect.last_event });

// A loaded CI box can stall for a long while: that is not a failure of order.
describe("the hook shim: order", { timeout: 90_000 }, () => {
  it("applies real Claude Code event streams of three sessions in spawn order, delivered with random delays", async () => {
    const sessions = await Promise.all(
      ["s-a", "s-b", "s-c"].map(async (id, index) => {
        const all = claudeSteps(id, `/work/${id}`);
        // Each session stops at a different step, so its final state tells whether its last event won.
        return { id, steps: all.slice(0, all.length - index * 3), claude: await harness("claude") };
      }),
    );
    await Promise.all(
      sessions.map(async ({ steps, claude }) => {
        for (const step of steps) {
          // A harness waits for its hook before its next event: the shim returns at once, the drainer applies later.
          expectSilentSuccess(await claude.emit(step.alias, "claude", step.payload, { shell: true, command: shimCommand(step.alias) }));
          await sleep(Math.random() * 15);
        }
      }),
    );
    await spoolDrained();
    for (const { id, steps, claude } of sessions) {
      const canonical = canonicalId("claude", id, await identityOf(claude.pid));
      expect(await recordAt(canonical)).toMatchObject({ kind: "record", record: { ...expected(steps.at(-1) as Step), pid: claude.pid } });
      expect(applied(canonical)).toEqual(steps.map((step) => step.expect.last_event));
    }
  });

  it("applies events queued while no drainer ran, in spawn order, once a reader starts one", async () => {
    const claude = await harness("claude");
    const steps = claudeSteps("s-rev", "/work/rev").slice(0, 8);
    // `true` as the Node: the shim queues every event (its payload copied from stdin) but the drainer it starts is
    // `true` too, which exits at once; this test starts the real one afterwards.
    for (const step of steps)
      expectSilentSuccess(
        await claude.emit(step.alias, "claude", step.payload, { shell: true, command: shimCommand(step.alias, "/bin/true") }),
      );
    expect(entries()).toHaveLength(steps.length);
    // A reader finds events queued and no drainer: it starts one (and shows what is on disk meanwhile).
    expect((await runNode(CLI_BIN, ["list"], { env: sandbox.env })).code).toBe(0);
    await spoolDrained();
    const canonical = canonicalId("claude", "s-rev", await identityOf(claude.pid));
    expect(applied(canonical)).toEqual(steps.map((step) => step.expect.last_event));
    expect(await recordAt(canonical)).toMatchObject({ kind: "record", record: expected(steps.at(-1) as Step) });
  });
});

/** Start the real drainer (as the shim would) and wait until the queue is empty; it stays for the next test's sandbox no longer. */
async function runDrainer(): Promise<void> {
  const drainer = spawn(process.execPath, [DRAINER, sandbox.stateDir], { env: sandbox.env, stdio: "ignore" });
  try {
    await spoolDrained();
  } finally {
    drainer.kill("SIGKILL");
  }
}

describe("the hook shim: identity", () => {
  it("rests on the harness process the shim captured, even when the harness and the shim's parent are gone", async () => {
    const claude = await harness("claude");
    const identity = await identityOf(claude.pid);
    const [start] = claudeSteps("s-gone", "/work/gone");
    // `; :` keeps the shell that runs the command alive as the shim's parent (no exec of the last command).
    const run = await claude.emit("session-start", "claude", start?.payload, {
      shell: true,
      command: `${shimCommand("session-start", "/bin/true")}; :`,
    });
    expectSilentSuccess(run);
    await claude.stop();
    expect(await linuxProcessSource().basics(claude.pid)).toBeUndefined();
    expect(entries()).toHaveLength(1);
    await runDrainer();
    const record = await recordAt(canonicalId("claude", "s-gone", identity));
    expect(record).toMatchObject({ kind: "record", record: { status: "started", identity: "process", pid: claude.pid } });
    expect(record.kind === "record" && `pid:${record.record.pid}@${record.record.process_start}`).toBe(identity);
  });
});

describe("the hook shim: fail-open", () => {
  const payload = claudeSteps("s-fail", "/work/fail")[0]?.payload as string;
  const runShim = (args: readonly string[], env: NodeJS.ProcessEnv = sandbox.env, shell = "/bin/sh") => {
    const started = performance.now();
    const result = spawnSync(shell, [SHIM, ...args], { input: payload, env, encoding: "utf8" });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr, ms: performance.now() - started };
  };

  it("exits 0 at once with nothing on stdout when Node is missing, and leaves nothing spooled", () => {
    const run = runShim(["/nonexistent/node", "stop", "--agent", "claude"]);
    expectSilentSuccess(run);
    expect(run.ms).toBeLessThan(2000);
    expect(entries()).toEqual([]);
  });

  it("returns at once when the harness holds stdin open (the drainer reads the copy, within the hook's input bound)", async () => {
    const child = spawn("/bin/sh", [SHIM, process.execPath, "session-start", "--agent", "claude"], { env: sandbox.env });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const started = performance.now();
    child.stdin.write(payload);
    const code = await new Promise((resolve) => child.on("exit", resolve));
    const ms = performance.now() - started;
    expect({ code, stdout }).toEqual({ code: 0, stdout: "" });
    expect(ms).toBeLessThan(2000);
    // The whole JSON object was written: the drainer needs no end of file to apply it.
    await spoolDrained();
    child.stdin.end();
  });

  it("exits 0 with nothing on stdout when the harness gave it no stdin at all (fd 0 closed)", () => {
    const args = ["/bin/true", "stop", "--agent", "claude"].join(" ");
    const result = spawnSync("/bin/sh", ["-c", `/bin/sh '${SHIM}' ${args} <&-`], { env: sandbox.env, encoding: "utf8" });
    expectSilentSuccess({ code: result.status, stdout: result.stdout, stderr: result.stderr });
  });

  it("exits 0 with nothing on stdout on a wrong command line", () => {
    expectSilentSuccess(runShim([process.execPath, "stop"]));
    expectSilentSuccess(runShim([]));
  });

  it("hands the event to the synchronous hook when the spool cannot be made (a file in the way), which fails open too", () => {
    writeFileSync(join(sandbox.root, "file"), "");
    const run = runShim([process.execPath, "stop", "--agent", "claude"], {
      ...sandbox.env,
      TONGS_AGENTS_STATE_DIR: join(sandbox.root, "file", "state"),
    });
    expectSilentSuccess(run);
  });

  it("never writes through a spool that is a symlink: the synchronous hook takes the event", () => {
    const elsewhere = join(sandbox.root, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(sandbox.stateDir, { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, spool());
    expectSilentSuccess(runShim([process.execPath, "stop", "--agent", "claude"]));
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("runs under bash in POSIX mode as under dash (no features beyond POSIX sh)", () => {
    for (const shell of ["/bin/dash", "/bin/bash"]) {
      const env = { ...sandbox.env, POSIXLY_CORRECT: "1" };
      expectSilentSuccess(runShim(["/bin/true", "stop", "--agent", "claude"], env, shell));
    }
    expect(entries()).toHaveLength(2);
  });
});

/**
 * Run `command` through `/bin/sh -c` with `bytes` on a stdin this test holds open after the command exits (a FIFO: Node
 * closes a child's stdin pipe when the child exits). Returns the end to close.
 */
async function withHeldStdin(command: string, bytes: string): Promise<{ close(): void }> {
  const fifo = join(sandbox.root, `stdin-${Math.random().toString(16).slice(2)}`);
  expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
  const fd = openSync(fifo, "r+"); // read and write: opening does not wait for a reader, and the FIFO stays open
  writeSync(fd, bytes);
  const run = spawnSync("/bin/sh", ["-c", `${command} <'${fifo}'`], { env: sandbox.env, encoding: "utf8" });
  expectSilentSuccess({ code: run.status, stdout: run.stdout, stderr: run.stderr });
  return { close: () => closeSync(fd) };
}

describe("the drainer", () => {
  const payload = claudeSteps("s-drain", "/work/drain")[0]?.payload as string;
  const context = () => ({
    stateDir: sandbox.stateDir,
    env: { PATH: process.env.PATH ?? "", TMUX: "/drainer/own,1,0", TMUX_PANE: "%99" },
    bootId: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
    uptimeSeconds: () => Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]),
  });
  /** Queue one event through the real shim from a fake claude, with no drainer (`true` as the Node). */
  async function queued(env: NodeJS.ProcessEnv = {}): Promise<FakeHarness> {
    const claude = await harness("claude");
    expectSilentSuccess(
      await claude.emit("session-start", "claude", payload, { shell: true, command: shimCommand("session-start", "/bin/true"), env }),
    );
    // The shim exits before its background copy of stdin ends; until then the drainer rightly waits for the payload.
    await copied();
    return claude;
  }
  const record = async (claude: FakeHarness) => recordAt(canonicalId("claude", "s-drain", await identityOf(claude.pid)));

  it("applies the event with the terminal and launch identity its shim captured, never the drainer's own", async () => {
    const claude = await queued({ TMUX: "/agent/tmux,5,0", TMUX_PANE: "%7", TONGS_AGENTS_PROFILE: "work", ANTHROPIC_API_KEY: "secret" });
    const entry = readFileSync(join(spool(), entries()[0] as string), "latin1");
    expect(entry).not.toContain("secret");
    expect(await drainAll(context())).toBe(1);
    expect(await record(claude)).toMatchObject({
      kind: "record",
      record: { status: "started", terminal: { env: { TMUX: "/agent/tmux,5,0", TMUX_PANE: "%7" } }, launch: { profile_id: "work" } },
    });
    expect(readdirSync(spool())).toEqual([]);
  });

  it("captures exactly the allowlisted variables (HOOK_ENV_KEYS), in the shim as in the code", async () => {
    // PATH stays a real one: the shim needs `head`.
    const all = Object.fromEntries(HOOK_ENV_KEYS.map((key) => [key, key === "PATH" ? (process.env.PATH ?? "") : `value of ${key}`]));
    await queued({ ...all, SOMETHING_ELSE: "x" });
    const read = parseShimEntry(readFileSync(join(spool(), entries()[0] as string)));
    expect(read.ok && read.entry.env).toEqual(all);
  });

  it.each([
    ["head under stdbuf", false, "head"],
    ["dd alone, where the drainer marked that it takes a byte count", true, "dd"],
  ])(
    "a harness that holds stdin open, copied by %s: the event is applied once its JSON is whole, and the copy is stopped",
    async (_, dd, program) => {
      mkdirSync(spool(), { recursive: true, mode: 0o700 });
      expect(markShimCopier(spool()) && existsSync(join(spool(), DD_COPIER_MARK)), "GNU dd here takes a byte count").toBe(true);
      if (!dd) rmSync(join(spool(), DD_COPIER_MARK));
      // The shim runs as a child of this test, not of a fake claude: it finds no harness and makes a placeholder.
      const held = await withHeldStdin(shimCommand("session-start", "/bin/true"), payload);
      const reader = readerOf(entries()[0] as string);
      expect(reader?.start).toBeDefined();
      // Until the background shell has started the program (stdbuf execs head in the same process).
      const comm = () => (copying(reader) ? readFileSync(`/proc/${reader?.pid}/comm`, "utf8").trim() : "(exited)");
      for (let tries = 0; ["sh", "dash", "stdbuf"].includes(comm()) && tries < 100; tries++) await sleep(20);
      expect(comm(), "the program copying stdin").toBe(program);
      // Until the copy has it all (it may not have run yet): never longer than the input bound.
      let done = 0;
      for (let tries = 0; done === 0 && tries < 40; tries++) {
        done = (await drainPass(context())).done;
        if (done === 0) await sleep(50);
      }
      expect(done).toBe(1);
      // Applied, not cut: the copy wrote what it read while stdin stayed open (GNU head alone keeps it in stdio's buffer
      // until it exits, and the entry would be cut at the bound with nothing read).
      const sessions = sessionsDirOf(sandbox.stateDir);
      expect(existsSync(sessions) ? readdirSync(sessions).filter((name) => name.endsWith(".json")) : [], "the event's record").toHaveLength(
        1,
      );
      for (let tries = 0; copying(reader) && tries < 20; tries++) await sleep(50);
      expect(copying(reader)).toBe(false);
      held.close();
    },
  );

  it("waits past the input bound for a copy of stdin that waits for a CPU, and cuts one blocked on the harness", async () => {
    // A loaded machine: the shim's `head` is runnable but has not run yet, its file still empty, 3 s after the hook
    // fired. The harness wrote the whole payload (it is in the pipe): the event must not be cut at the bound.
    const claude = await queued();
    const payloadPath = () => join(spool(), (entries()[0] as string).replace(/\.ev$/, ".in"));
    const later = { ...context(), uptimeSeconds: () => context().uptimeSeconds() + 3 };
    /** The queued entry's copy of stdin is now `pid`, and has copied nothing yet. */
    const asReader = (pid: number) => {
      const entryPath = join(spool(), entries()[0] as string);
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
      const text = readFileSync(entryPath, "latin1");
      const read = parseShimEntry(Buffer.from(text, "latin1"));
      const old = read.ok ? read.entry.reader : undefined;
      writeFileSync(entryPath, text.replace(`\n${old?.pid} ${old?.start}\n`, `\n${pid} ${start}\n`), "latin1");
      writeFileSync(payloadPath(), "");
    };
    const spinner = spawn("/bin/sh", ["-c", "while :; do :; done"], { stdio: "ignore" });
    try {
      asReader(spinner.pid as number);
      expect(await drainPass(later)).toEqual({ done: 0, waiting: 1 });
      expect(await record(claude)).toEqual({ kind: "absent" });
      // It runs at last and copies the payload; the next pass applies it.
      writeFileSync(payloadPath(), payload);
    } finally {
      spinner.kill("SIGKILL");
    }
    await new Promise((resolve) => spinner.on("exit", resolve));
    expect(await drainPass(later)).toEqual({ done: 1, waiting: 0 });
    expect(await record(claude)).toMatchObject({ kind: "record", record: { status: "started" } });

    // The same bound with a copy that sleeps on a pipe the harness holds open without writing: cut, nothing written.
    const other = await queued();
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      for (let tries = 0; !/\) S /.test(readFileSync(`/proc/${sleeper.pid}/stat`, "latin1")) && tries < 100; tries++) await sleep(10);
      asReader(sleeper.pid as number);
      expect(await drainPass(later)).toEqual({ done: 1, waiting: 0 });
    } finally {
      sleeper.kill("SIGKILL");
    }
    expect(await record(other)).toEqual({ kind: "absent" });
  });

  it("holds back a later entry of the same agent while an earlier one's payload is still coming, not another agent's", async () => {
    const other = await harness("claude");
    // Two events from this test process (the same two nearest ancestors: `sh -c`'s parent is this process): the first
    // with its payload half written and stdin held open.
    const held = await withHeldStdin(shimCommand("session-start", "/bin/true"), payload.slice(0, 20));
    const later = spawnSync("/bin/sh", ["-c", shimCommand("prompt-submit", "/bin/true")], { env: sandbox.env, input: payload });
    expect(later.status).toBe(0);
    // Another agent's event, after both.
    expectSilentSuccess(
      await other.emit("session-start", "claude", payload, { shell: true, command: shimCommand("session-start", "/bin/true") }),
    );
    expect(entries()).toHaveLength(3);
    const otherRecord = async () => recordAt(canonicalId("claude", "s-drain", await identityOf(other.pid)));
    // Passes until the other agent's event is applied (one, unless the machine is loaded); the held two stay queued.
    for (let pass = 0; (await otherRecord()).kind !== "record" && pass < 40; pass++) {
      expect((await drainPass(context())).waiting).toBeGreaterThanOrEqual(2);
      await sleep(50);
    }
    expect(await otherRecord()).toMatchObject({ kind: "record" });
    expect(entries()).toHaveLength(2);
    // The held payload ends cut (malformed JSON): refused; then the later event goes.
    held.close();
    let passes = 0;
    while (entries().length > 0 && passes++ < 40) {
      await drainPass(context());
      await sleep(50);
    }
    expect(entries()).toEqual([]);
  });

  it("removes an entry its shim never finished once abandoned, and refuses what is not an entry, writing nothing", async () => {
    mkdirSync(spool(), { recursive: true, mode: 0o700 });
    writeFileSync(join(spool(), "100-1.ev"), "tongs-agents-spool 2\n1\n1\n");
    writeFileSync(join(spool(), "100-2.ev"), "not an entry\0end\n");
    expect(await drainPass(context())).toEqual({ done: 1, waiting: 1 });
    expect(readdirSync(spool())).toEqual(["100-1.ev"]);
    const old = new Date(Date.now() - ABANDONED_MS - 1000);
    utimesSync(join(spool(), "100-1.ev"), old, old);
    expect(await drainPass(context())).toEqual({ done: 1, waiting: 0 });
    expect(readdirSync(spool())).toEqual([]);
    expect(existsSync(sessionsDirOf(sandbox.stateDir)) ? readdirSync(sessionsDirOf(sandbox.stateDir)) : []).toEqual([]);
  });
});
