// The shell client (bin/tongs-agents-key.sh) against the keypress server in this process, under the real shells: a
// verb gets exactly the client's arguments, environment and directory (read from /proc), its output and exit code come
// back as they were printed, and everything the client cannot have served goes to the Node client (a recording
// stand-in for `node` here), never run twice and never hanging; its watchdog leaves nothing behind.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseProcStat } from "../core/proc.ts";
import { fifoConnection } from "./keys.ts";
import { serverDirOf } from "./protocol.ts";
import { startServer, type RunVerb, type StartOutcome } from "./server.ts";

// Debian's /bin/sh, and bash as /bin/sh is elsewhere (Fedora, Arch): POSIX mode.
const SHELLS = ["dash", "bash --posix"];
const BUILD = "build-k";

let root: string;
let stateDir: string;
let install: string;
let fakeNode: string;
let fakeBin: string;
const stops: (() => Promise<unknown>)[] = [];
const children: ChildProcess[] = [];
const here = process.cwd();
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "tongs-keys-")));
  stateDir = join(root, "state");
  // An install of our own: the shell client beside a bin/tongs-agents.js, its build in dist/build.
  mkdirSync(join(root, "install", "bin"), { recursive: true });
  mkdirSync(join(root, "install", "dist"));
  copyFileSync(join(here, "bin", "tongs-agents-key.sh"), join(root, "install", "bin", "tongs-agents-key.sh"));
  writeFileSync(join(root, "install", "bin", "tongs-agents.js"), "");
  writeFileSync(join(root, "install", "dist", "build"), `${BUILD}\n`);
  install = join(root, "install", "bin", "tongs-agents.js");
  // `node` as the client hands a verb to it: it says so, with what it was given and whether it was told the server
  // did not answer.
  fakeNode = join(root, "fake-node");
  writeFileSync(
    fakeNode,
    `#!/bin/sh\nprintf 'node client%s:' "\${TONGS_AGENTS_SERVER_UNANSWERED:+ (unanswered)}"\nprintf ' [%s]' "$@"\nprintf '\\n'\nexit 7\n`,
  );
  chmodSync(fakeNode, 0o755);
  // Every sleep the client's watchdog starts, by PID (exec keeps it), to see that none is left.
  fakeBin = join(root, "bin");
  mkdirSync(fakeBin);
  writeFileSync(join(fakeBin, "sleep"), `#!/bin/sh\necho $$ >>"${root}/sleeps"\nexec /bin/sleep "$@"\n`);
  chmodSync(join(fakeBin, "sleep"), 0o755);
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const stop of stops.splice(0)) await stop();
  process.chdir(here);
  rmSync(root, { recursive: true, force: true });
});

async function serve(run: RunVerb, build = BUILD): Promise<Extract<StartOutcome, { kind: "serving" }>> {
  const outcome = await startServer({ stateDir, build, install, run, log: () => undefined });
  if (outcome.kind !== "serving") throw new Error(`not serving: ${JSON.stringify(outcome)}`);
  stops.push(async () => {
    outcome.stop("test over");
    await outcome.stopped;
  });
  return outcome;
}

/** A server whose `show slow` waits until released; the verbs it ran, in order. */
async function serveSlow(): Promise<{ ran: string[]; release: () => void; server: Extract<StartOutcome, { kind: "serving" }> }> {
  const ran: string[] = [];
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = await serve(async (argv) => {
    ran.push(argv.join(" "));
    if (argv[1] === "slow") await gate;
    return 0;
  });
  return { ran, release, server };
}

interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
  readonly ms: number;
}

function start(argv: string[], options: { shell?: string; env?: Record<string, string>; cwd?: string } = {}): ChildProcess {
  const [shell = "sh", ...flags] = (options.shell ?? "sh").split(" ");
  const child = spawn(shell, [...flags, join(root, "install", "bin", "tongs-agents-key.sh"), fakeNode, ...argv], {
    cwd: options.cwd ?? root,
    env: options.env ?? clientEnv(),
  });
  children.push(child);
  return child;
}

/** Run the client to its end (killed past 15 s: a hang fails the test, it does not outlive it). */
function key(argv: string[], options: { shell?: string; env?: Record<string, string>; cwd?: string } = {}): Promise<Ran> {
  const started = Date.now();
  const child = start(argv, options);
  const bound = setTimeout(() => child.kill("SIGKILL"), 15_000);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(bound);
      resolve({ code, out, err, ms: Date.now() - started });
    }),
  );
}

function clientEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${fakeBin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: root, TONGS_AGENTS_STATE_DIR: stateDir, ...extra };
}

const nodeClient = (argv: readonly string[], unanswered = false) =>
  `node client${unanswered ? " (unanswered)" : ""}: [${install}]${argv.map((word) => ` [${word}]`).join("")}\n`;

/** Reply FIFOs left in the server dir. */
const leftovers = () => readdirSync(serverDirOf(stateDir)).filter((name) => name.startsWith("reply."));

/** A process that has not ended (a zombie has: only its parent's wait is left). */
function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  const state = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"))?.state;
  return state !== undefined && state !== "Z" && state !== "X";
}

/** The watchdog's sleeps still running 1.5 s after the client ended (the most a TERM waits for is one second). */
async function sleepsLeft(): Promise<number[]> {
  await sleep(1500);
  const pids = existsSync(join(root, "sleeps")) ? readFileSync(join(root, "sleeps"), "utf8").trim().split("\n").map(Number) : [];
  return pids.filter(alive);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const startTimeOf = (pid: number) => parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"))?.startTime ?? "";

/** A stand-in server process: alive, its FIFO in the server dir, reading nothing unless the test does. */
function fakeServer(): { pid: number; fifo: string; process: ChildProcess } {
  const process = spawn("sleep", ["30"]);
  children.push(process);
  mkdirSync(serverDirOf(stateDir), { recursive: true, mode: 0o700 });
  const fifo = join(serverDirOf(stateDir), `keys.${process.pid}.${startTimeOf(process.pid ?? 0)}`);
  spawnSync("mkfifo", [fifo]);
  return { pid: process.pid ?? 0, fifo, process };
}

describe.each(SHELLS)("the shell client under %s", (shell) => {
  it("gives the verb exactly its arguments, environment and directory, and prints what the verb printed", async () => {
    const seen: { argv: readonly string[]; env: NodeJS.ProcessEnv; cwd: string; color: boolean; columns: number }[] = [];
    await serve(async (argv, { env, cwd }, io) => {
      seen.push({ argv, env: { ...env }, cwd, color: io.color, columns: io.columns });
      io.stdout("first line\n\n  indented, and spaces after  ");
      io.stderr("an error: 100% \\n not a newline");
      io.stdout("x7 looks like an exit; r looks like ready");
      return 4;
    });
    const cwd = join(root, "a dir with 'quotes'");
    mkdirSync(cwd);
    const argv = ["show", 'it\'s a "test"', "two\nlines", "naïve ✓", "", "-x", "%s\\t"];
    const env = clientEnv({ EMPTY: "", MULTI: "a\nb", UNICODE: "ü" });
    const ran = await key(argv, { shell, env, cwd });
    expect(ran).toMatchObject({
      code: 4,
      out: "first line\n\n  indented, and spaces after  \nx7 looks like an exit; r looks like ready\n",
      err: "an error: 100% \\n not a newline\n",
    });
    // What the Node client sends for a stdout that is not a terminal: no colour, 120 columns.
    expect(seen).toEqual([{ argv, env, cwd, color: false, columns: 120 }]);
    expect(leftovers()).toEqual([]);
    expect(await sleepsLeft()).toEqual([]);
  });

  it("hands the verb to the Node client when there is no server, one that is gone, or one of another build", async () => {
    expect(await key(["status", "--format", "tmux"], { shell })).toMatchObject({
      code: 7,
      out: nodeClient(["status", "--format", "tmux"]),
    });
    let runs = 0;
    await serve(async () => (runs++, 0), "build-other");
    // Refused: the Node client asks the server itself (it replaces an older build that way).
    expect(await key(["next"], { shell })).toMatchObject({ code: 7, out: nodeClient(["next"]) });
    expect(runs).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it("hands unserved verbs, TONGS_AGENTS_SERVER=off, no verb and a terminal on stdout to the Node client", async () => {
    let runs = 0;
    await serve(async () => (runs++, 0));
    for (const [argv, env] of [
      [["pick"], clientEnv()],
      [["list"], clientEnv()],
      [["install", "--dry-run"], clientEnv()],
      [[], clientEnv()],
      [["status"], clientEnv({ TONGS_AGENTS_SERVER: "off" })],
    ] as const)
      expect(await key([...argv], { shell, env })).toMatchObject({ code: 7, out: nodeClient(argv) });
    // util-linux's script(1) gives it a pseudo-terminal for stdout.
    const [program = "sh", ...flags] = shell.split(" ");
    const command = [program, ...flags, join(root, "install", "bin", "tongs-agents-key.sh"), fakeNode, "status"].join(" ");
    const onTerminal = spawnSync("script", ["-qec", command, "/dev/null"], { env: clientEnv(), encoding: "utf8", timeout: 10_000 });
    expect(onTerminal.stdout.replaceAll("\r", "")).toBe(nodeClient(["status"]));
    expect(runs).toBe(0);
  });

  it("falls back within its bound when the server is busy past it, and the server never runs that verb", async () => {
    const { ran, release } = await serveSlow();
    const slow = key(["show", "slow"], { shell });
    await sleep(300);
    const waiting = await key(["show", "queued"], { shell });
    // Told the server did not answer: the Node client runs it at once, without waiting for the server again.
    expect(waiting).toMatchObject({ code: 7, out: nodeClient(["show", "queued"], true) });
    expect(waiting.ms).toBeGreaterThanOrEqual(1900);
    expect(waiting.ms).toBeLessThan(5000);
    release();
    expect(await slow).toMatchObject({ code: 0 });
    await sleep(300);
    expect(ran).toEqual(["show slow"]);
    expect(leftovers()).toEqual([]);
  });
});

describe("the shell client and a server that cannot answer", () => {
  it("a server killed with its FIFO left behind: the Node client at once", async () => {
    const server = fakeServer();
    server.process.kill("SIGKILL");
    await new Promise((resolve) => server.process.on("exit", resolve));
    const ran = await key(["next"]);
    expect(ran).toMatchObject({ code: 7, out: nodeClient(["next"]) });
    expect(ran.ms).toBeLessThan(1500);
  });

  it("a stopped server (SIGSTOP, ^Z): the Node client at once, told not to wait for it", async () => {
    const server = fakeServer();
    server.process.kill("SIGSTOP");
    try {
      // Stopped: a full FIFO would hold a writer; it is never written to.
      await sleep(100);
      const ran = await key(["next"]);
      expect(ran).toMatchObject({ code: 7, out: nodeClient(["next"], true) });
      expect(ran.ms).toBeLessThan(1500);
    } finally {
      server.process.kill("SIGCONT");
    }
  });

  it("a FIFO whose server's PID another process has now (killed outright, the PID reused): the Node client at once", async () => {
    const other = spawn("sleep", ["30"]);
    children.push(other);
    mkdirSync(serverDirOf(stateDir), { recursive: true, mode: 0o700 });
    spawnSync("mkfifo", [join(serverDirOf(stateDir), `keys.${other.pid}.1`)]);
    const ran = await key(["next"]);
    expect(ran).toMatchObject({ code: 7, out: nodeClient(["next"]) });
    expect(ran.ms).toBeLessThan(1500);
  });

  it("our mark already in the caller's environment: the Node client, which takes it away, never the server", async () => {
    let runs = 0;
    await serve(async () => (runs++, 0));
    const ran = await key(["next"], { env: clientEnv({ TONGS_AGENTS_SERVER_UNANSWERED: "1" }) });
    expect(ran).toMatchObject({ code: 7, out: nodeClient(["next"], true) });
    expect(runs).toBe(0);
  });

  it("a client killed mid-verb: its watchdog ends within its next second", async () => {
    const { release } = await serveSlow();
    const client = start(["show", "slow"]);
    await sleep(1300);
    client.kill("SIGKILL");
    expect(await sleepsLeft()).toEqual([]);
    release();
  });

  it("a live process that never reads the FIFO: the Node client after the 2 s bound, nothing left behind", async () => {
    fakeServer();
    const ran = await key(["next"]);
    expect(ran).toMatchObject({ code: 7, out: nodeClient(["next"], true) });
    expect(ran.ms).toBeGreaterThanOrEqual(1900);
    expect(leftovers()).toEqual([]);
    expect(await sleepsLeft()).toEqual([]);
  });

  it("a server that ends after go: the server went away, exit 1, never run a second time", async () => {
    const server = fakeServer();
    // This test is the server: it reads the request, says r, waits for go, prints a line, and its process ends.
    const requests = new Socket({ fd: openSync(server.fifo, constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
    const client = key(["focus", "x"]);
    try {
      const lines: string[] = [];
      requests.setEncoding("utf8");
      requests.on("data", (chunk: string) => lines.push(...chunk.trimEnd().split("\n")));
      while (lines.length === 0) await sleep(10);
      const pid = lines[0]?.split(" ")[0] ?? "";
      const reply = openSync(join(serverDirOf(stateDir), `reply.${pid}`), constants.O_WRONLY | constants.O_NONBLOCK);
      const answer = new Socket({ fd: reply, readable: false, writable: true });
      answer.write("r\n");
      while (!lines.includes(`g ${pid}`)) await sleep(10);
      answer.write("oone line\n");
      answer.destroy();
      server.process.kill("SIGKILL");
      const ran = await client;
      expect(ran).toMatchObject({ code: 1, out: "one line\n", err: "tongs-agents: the server went away while running the command\n" });
      expect(ran.ms).toBeLessThan(5000);
    } finally {
      requests.destroy();
    }
  });

  it("a client killed while its verb waits its turn: never run, and the server does not wait for it", async () => {
    const { ran, release } = await serveSlow();
    const slow = key(["show", "slow"]);
    await sleep(300);
    const doomed = start(["show", "killed"]);
    await sleep(300);
    doomed.kill("SIGKILL");
    await sleep(100);
    release();
    await slow;
    const next = await key(["show", "after"]);
    expect(next.code).toBe(0);
    expect(next.ms).toBeLessThan(1500);
    expect(ran).toEqual(["show slow", "show after"]);
  });

  it("a server stopping: a new client goes to the Node client at once; the one it took still answered", async () => {
    const { release, server } = await serveSlow();
    const slow = key(["show", "slow"]);
    await sleep(300);
    server.stop("test");
    const late = await key(["show", "late"]);
    expect(late).toMatchObject({ code: 7, out: nodeClient(["show", "late"]) });
    expect(late.ms).toBeLessThan(1500);
    release();
    expect(await slow).toMatchObject({ code: 0 });
  });

  it("refuses a request from a process that is not this install's client, and runs nothing", async () => {
    let runs = 0;
    await serve(async () => (runs++, 0));
    const dir = serverDirOf(stateDir);
    const fifo = readdirSync(dir).find((name) => name.startsWith("keys."));
    // A shell that asks as the client does, from another script: its own PID, one argument, the right build.
    const impostor = join(root, "impostor.sh");
    writeFileSync(
      impostor,
      `mkfifo "${dir}/reply.$$"; exec 3<>"${dir}/reply.$$" 4<"${dir}/reply.$$"; printf '%s 1 ${BUILD}\\n' $$ 1<>"${dir}/${fifo}"; IFS= read -r line <&4; printf '%s\\n' "$line"`,
    );
    // Not spawnSync: the server answers from this process.
    const answer = await new Promise<string>((resolve) => {
      const child = spawn("sh", [impostor, "show"]);
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      child.on("close", () => resolve(out));
    });
    expect(answer).toBe("frequest\n");
    expect(runs).toBe(0);
  });
});

describe("replies on the FIFO", () => {
  it("are whole lines, whatever pieces the text comes in, and end with the exit code", () => {
    const out = new PassThrough();
    let written = "";
    out.on("data", (chunk: Buffer) => (written += chunk.toString()));
    const connection = fifoConnection(out);
    connection.send({ kind: "ready" });
    connection.send({ kind: "out", text: "ab" });
    connection.send({ kind: "err", text: "oops\n" });
    connection.send({ kind: "out", text: "c\nd\n\ne" });
    connection.send({ kind: "exit", code: 3 });
    expect(written).toBe("r\neoops\noabc\nod\no\noe\nx3\n");
  });
});
