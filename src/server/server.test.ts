// The keypress server and its client in this process, with a verb runner of the test's own: the wire, one verb at a
// time in the client's environment and directory, and every way the client falls back or reports a lost server.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askServer, type ClientOutcome } from "./client.ts";
import { readLines, socketPathOf, type Reply, type TerminalInput, type VerbRequest } from "./protocol.ts";
import { probe, stopServer } from "./control.ts";
import { startServer, type RunVerb } from "./server.ts";

let root: string;
let stateDir: string;
const stops: (() => Promise<unknown>)[] = [];
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "tongs-server-")));
  stateDir = join(root, "state");
});
const here = process.cwd();
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  // A verb abandoned mid-run (the bound test) never gets back to the server's directory.
  process.chdir(here);
  rmSync(root, { recursive: true, force: true });
});

const BUILD = "build-a";
const INSTALL = "/opt/tongs-agents/bin/tongs-agents.js";
const log: string[] = [];

async function serve(run: RunVerb): Promise<void> {
  const outcome = await startServer({ stateDir, build: BUILD, install: INSTALL, run, log: (line) => log.push(line) });
  if (outcome.kind !== "serving") throw new Error(`not serving: ${JSON.stringify(outcome)}`);
  stops.push(async () => {
    outcome.stop("test over");
    await outcome.stopped;
  });
}

function request(argv: string[], overrides: Partial<VerbRequest> = {}): VerbRequest {
  return {
    build: BUILD,
    install: INSTALL,
    argv,
    cwd: root,
    env: { HOME: root, ONLY_HERE: "client" },
    color: false,
    columns: 80,
    ...overrides,
  };
}

async function ask(argv: string[], overrides: Partial<VerbRequest> = {}): Promise<{ outcome: ClientOutcome; out: string; err: string }> {
  let out = "";
  let err = "";
  const outcome = await askServer(request(argv, overrides), socketPathOf(stateDir), {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
  });
  return { outcome, out, err };
}

/** Send one raw line and collect every reply until the server closes. */
function raw(line: string): Promise<Reply[]> {
  return new Promise((resolve) => {
    const replies: Reply[] = [];
    const socket = connect(socketPathOf(stateDir));
    socket.on("connect", () => socket.write(line));
    readLines(
      socket,
      (message) => replies.push(message as Reply),
      () => undefined,
    );
    socket.on("close", () => resolve(replies));
    socket.on("error", () => undefined);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the keypress server", () => {
  it("hands a verb the client's environment and directory as its context, prints what it prints, returns its exit code", async () => {
    const here = process.cwd();
    const own = { ...process.env };
    await serve(async (argv, caller, io) => {
      io.stdout(`argv=${argv.join(" ")} cwd=${caller.cwd} only=${caller.env.ONLY_HERE}`);
      io.stdout(`while it runs: server cwd ${process.cwd() === here ? "unchanged" : "CHANGED"}, ONLY_HERE ${process.env.ONLY_HERE}`);
      io.stderr(`columns=${io.columns} color=${io.color}`);
      return 5;
    });
    const { outcome, out, err } = await ask(["focus", "x"], { columns: 132 });
    expect(outcome).toEqual({ kind: "done", code: 5 });
    expect(out).toBe(`argv=focus x cwd=${root} only=client\nwhile it runs: server cwd unchanged, ONLY_HERE undefined\n`);
    expect(err).toBe("columns=132 color=false\n");
    // The server's own world never changed.
    expect(process.env).toEqual(own);
    expect(process.cwd()).toBe(here);
  });

  it("runs one verb at a time, in the order asked", async () => {
    const events: string[] = [];
    await serve(async (argv, { env }, io) => {
      events.push(`start ${argv[1]} ${env.WHO}`);
      await sleep(argv[1] === "slow" ? 150 : 5);
      events.push(`end ${argv[1]} ${env.WHO}`);
      io.stdout(argv[1] ?? "");
      return 0;
    });
    const [slow, quick] = await Promise.all([
      ask(["list", "slow"], { env: { WHO: "first" } }),
      sleep(20).then(() => ask(["list", "quick"], { env: { WHO: "second" } })),
    ]);
    expect([slow.out, quick.out]).toEqual(["slow\n", "quick\n"]);
    expect(events).toEqual(["start slow first", "end slow first", "start quick second", "end quick second"]);
  });

  it("answers a verb that throws as its own process would: the stack on stderr, exit 1; and keeps serving", async () => {
    await serve(async (argv) => {
      if (argv[1] === "boom") throw new Error("boom in the verb");
      return 0;
    });
    const thrown = await ask(["show", "boom"]);
    expect(thrown.outcome).toEqual({ kind: "done", code: 1 });
    expect(thrown.err).toContain("Error: boom in the verb");
    expect((await ask(["show", "fine"])).outcome).toEqual({ kind: "done", code: 0 });
  });

  it("refuses what it does not serve before running anything, so the client runs it itself", async () => {
    const ran: string[] = [];
    await serve(async (argv) => (ran.push(argv.join(" ")), 0));
    expect((await ask(["pick"])).outcome).toMatchObject({ kind: "fallback", reason: "verb: pick is not served", replaced: false });
    expect((await ask(["list"], { cwd: join(root, "gone") })).outcome).toMatchObject({ kind: "fallback", replaced: false });
    expect(await raw("not json\n")).toEqual([]);
    expect(await raw(`${JSON.stringify({ build: BUILD, argv: "list" })}\n`)).toEqual([
      { kind: "refused", reason: "request", detail: "not a request" },
    ]);
    expect(ran).toEqual([]);
  });

  it("a client of another build of this install (an upgrade): refused, and the server stops and removes its socket", async () => {
    await serve(async () => 0);
    const { outcome } = await ask(["list"], { build: "build-b" });
    expect(outcome).toMatchObject({ kind: "fallback", replaced: true });
    await expect.poll(() => existsSync(socketPathOf(stateDir))).toBe(false);
    expect(await probe(socketPathOf(stateDir))).toBeUndefined();
  });

  it("a client of another install (a second copy on this state dir): refused, and the server keeps serving", async () => {
    await serve(async () => 0);
    const { outcome } = await ask(["list"], { build: "build-b", install: "/elsewhere/bin/tongs-agents.js" });
    expect(outcome).toMatchObject({ kind: "fallback", replaced: false });
    expect((await ask(["list"])).outcome).toEqual({ kind: "done", code: 0 });
  });

  it("never runs a verb whose client gave up waiting (it runs the verb itself)", async () => {
    const ran: string[] = [];
    await serve(async (argv) => {
      ran.push(argv.join(" "));
      if (argv[1] === "slow") await sleep(400);
      return 0;
    });
    const slow = ask(["list", "slow"]);
    await sleep(20);
    // Queued behind the slow one, this client gives up after 100 ms.
    let out = "";
    const impatient = await askServer(
      request(["next", "impatient"]),
      socketPathOf(stateDir),
      { stdout: (text) => (out += text), stderr: () => undefined },
      { startMs: 100, finishMs: 1000 },
    );
    expect(impatient).toMatchObject({ kind: "fallback", reason: expect.stringContaining("was not ready") });
    await slow;
    expect((await ask(["list", "after"])).outcome).toEqual({ kind: "done", code: 0 });
    expect(ran).toEqual(["list slow", "list after"]);
    expect(out).toBe("");
  });

  it("sends long output whole, in pieces a line can hold", async () => {
    const long = "x\u0001".repeat(600_000);
    await serve(async (argv, env, io) => (io.stdout(long), 0));
    const { outcome, out } = await ask(["list", "--json"]);
    expect(outcome).toEqual({ kind: "done", code: 0 });
    expect(out).toBe(`${long}\n`);
  });

  it("gives up on itself when a verb never finishes: stops at once, socket removed, abandoned", async () => {
    const outcome = await startServer({
      stateDir,
      build: BUILD,
      install: INSTALL,
      run: () => new Promise(() => undefined),
      log: () => undefined,
      verbBoundMs: 200,
    });
    if (outcome.kind !== "serving") throw new Error("not serving");
    const hung = askServer(
      request(["focus", "x"]),
      socketPathOf(stateDir),
      { stdout: () => undefined, stderr: () => undefined },
      { startMs: 1000, finishMs: 5000 },
    );
    expect(await outcome.stopped).toEqual({ why: "focus ran longer than 200 ms", abandoned: true });
    expect(existsSync(socketPathOf(stateDir))).toBe(false);
    expect(await hung).toEqual({ kind: "done", code: 1 });
  });

  it("stops when its socket is removed or replaced (nobody could reach it), and only removes its own", async () => {
    const outcome = await startServer({ stateDir, build: BUILD, install: INSTALL, run: async () => 0, log: () => undefined });
    if (outcome.kind !== "serving") throw new Error("not serving");
    rmSync(socketPathOf(stateDir));
    const other: Server = createServer().listen(socketPathOf(stateDir));
    stops.push(() => new Promise((resolve) => other.close(resolve)));
    expect((await outcome.stopped).why).toMatch(/no longer this server's socket/);
    expect(existsSync(socketPathOf(stateDir))).toBe(true);
  });

  it("a second start finds the first running; stop is honoured from any build and waits until it is gone", async () => {
    await serve(async () => 0);
    const second = await startServer({ stateDir, build: "build-b", install: INSTALL, run: async () => 0, log: () => undefined });
    expect(second).toMatchObject({ kind: "running", status: { pid: process.pid, build: BUILD, served: 0 } });
    expect(await stopServer(socketPathOf(stateDir))).toMatchObject({ build: BUILD });
    expect(await probe(socketPathOf(stateDir))).toBeUndefined();
    expect(await stopServer(socketPathOf(stateDir))).toBeUndefined();
  });

  it("replaces a stale socket (a server that died) and refuses a server dir open to others", async () => {
    // What a killed server leaves: its socket file, nobody listening. A real listener, killed with SIGKILL.
    const deadDir = join(root, "dead");
    mkdirSync(join(deadDir, "server"), { recursive: true, mode: 0o700 });
    const listener = spawn(process.execPath, ["-e", `require("net").createServer().listen(${JSON.stringify(socketPathOf(deadDir))})`]);
    await expect.poll(() => existsSync(socketPathOf(deadDir))).toBe(true);
    listener.kill("SIGKILL");
    await new Promise((resolve) => listener.once("exit", resolve));
    expect(existsSync(socketPathOf(deadDir))).toBe(true);
    expect(await probe(socketPathOf(deadDir))).toBeUndefined();
    const again = await startServer({ stateDir: deadDir, build: BUILD, install: INSTALL, run: async () => 0, log: () => undefined });
    expect(again.kind).toBe("serving");
    if (again.kind === "serving") stops.push(async () => (again.stop("test over"), await again.stopped));

    const open = join(root, "open");
    const made = await startServer({ stateDir: open, build: BUILD, install: INSTALL, run: async () => 0, log: () => undefined });
    if (made.kind === "serving") {
      made.stop("test over");
      await made.stopped;
    }
    chmodSync(join(open, "server"), 0o755);
    expect(await startServer({ stateDir: open, build: BUILD, install: INSTALL, run: async () => 0, log: () => undefined })).toMatchObject({
      kind: "refused",
      detail: expect.stringContaining("open to other users"),
    });
  });
});

describe("a terminal verb (the picker) through the server", () => {
  /** A stand-in picker: raw mode on, a frame per size, closes on "q" or when its terminal goes. */
  const picker: RunVerb = async (argv, { env }, io) => {
    if (argv[0] !== "pick") {
      io.stdout(`short ${argv[0]}`);
      return 0;
    }
    const terminal = io.terminal;
    if (!terminal) return 9;
    const { input, output } = terminal;
    input.setRawMode(true);
    output.write(`frame ${output.columns}x${output.rows} for ${env.ONLY_HERE}`);
    output.on("resize", () => output.write(` frame ${output.columns}x${output.rows}`));
    const how = await new Promise<string>((resolve) => {
      input.on("data", (data: Buffer) => data.toString() === "q" && resolve("q"));
      terminal.hangup.addEventListener("abort", () => resolve("hangup"));
    });
    input.setRawMode(false);
    closed.push(how);
    return how === "q" ? 0 : 3;
  };
  const closed: string[] = [];
  beforeEach(() => void closed.splice(0));

  it("draws on the caller's terminal: raw mode asked, keys and sizes forwarded, beside short verbs", async () => {
    await serve(picker);
    const raws: boolean[] = [];
    let out = "";
    let sendInput: ((input: TerminalInput) => void) | undefined;
    const terminal = {
      setRaw: (on: boolean) => void raws.push(on),
      forward: (send: (input: TerminalInput) => void) => ((sendInput = send), () => (sendInput = undefined)),
    };
    const done = askServer(
      request(["pick"], { terminal: { columns: 100, rows: 30 } }),
      socketPathOf(stateDir),
      { stdout: (text) => (out += text), stderr: () => undefined },
      { startMs: 2000, finishMs: 100 },
      terminal,
    );
    await expect.poll(() => out).toBe("frame 100x30 for client");
    // A short verb runs while the picker is open; the picker's finishing bound (100 ms here) does not apply.
    await sleep(150);
    expect((await ask(["status"])).out).toBe("short status\n");
    sendInput?.({ kind: "resize", columns: 80, rows: 12 });
    await expect.poll(() => out).toContain(" frame 80x12");
    sendInput?.({ kind: "keys", base64: Buffer.from("q").toString("base64") });
    expect(await done).toEqual({ kind: "done", code: 0 });
    expect(raws).toEqual([true, false]);
    expect(sendInput).toBeUndefined();
    expect(closed).toEqual(["q"]);
    expect(await probe(socketPathOf(stateDir))).toMatchObject({ served: 2, terminals: 0 });
  });

  it("closes the verb when the caller goes, and is refused without a terminal size", async () => {
    await serve(picker);
    const socket = connect(socketPathOf(stateDir));
    socket.on("connect", () => socket.write(`${JSON.stringify(request(["pick"], { terminal: { columns: 80, rows: 24 } }))}\n`));
    readLines(
      socket,
      (message) => (message as Reply).kind === "ready" && socket.write(`${JSON.stringify({ kind: "go" })}\n`),
      () => undefined,
    );
    await expect.poll(async () => (await probe(socketPathOf(stateDir)))?.terminals).toBe(1);
    socket.destroy();
    await expect.poll(() => closed).toEqual(["hangup"]);
    expect((await probe(socketPathOf(stateDir)))?.terminals).toBe(0);
    expect((await ask(["pick"])).outcome).toMatchObject({ kind: "fallback", reason: "verb: pick is not served" });
  });
});

describe("the keypress client", () => {
  /** A stand-in server that answers each connection with `replies`, then does `after`. */
  async function fake(replies: Reply[], after: "close" | "hang"): Promise<void> {
    mkdirSync(join(stateDir, "server"), { recursive: true, mode: 0o700 });
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      let asked = false;
      readLines(
        socket,
        () => {
          // Only the request is answered (a `go` after `ready` is not).
          if (asked) return;
          asked = true;
          for (const reply of replies) socket.write(`${JSON.stringify(reply)}\n`);
          if (after === "close") socket.destroy();
        },
        () => undefined,
      );
    });
    await new Promise<void>((resolve) => server.listen(socketPathOf(stateDir), resolve));
    stops.push(() => new Promise((resolve) => (sockets.forEach((socket) => socket.destroy()), server.close(resolve))));
  }
  const bounds = { startMs: 200, finishMs: 300 };
  const askWith = async () => {
    let err = "";
    const outcome = await askServer(
      request(["next"]),
      socketPathOf(stateDir),
      { stdout: () => undefined, stderr: (text) => (err += text) },
      bounds,
    );
    return { outcome, err };
  };

  it("falls back when there is no server", async () => {
    expect((await askWith()).outcome).toMatchObject({ kind: "fallback", reason: expect.stringContaining("ENOENT") });
  });

  it("falls back when the server closes before starting the verb, or does not start it in time", async () => {
    await fake([], "close");
    expect((await askWith()).outcome).toMatchObject({ kind: "fallback" });
  });

  it("falls back when a queued verb does not start within the bound", async () => {
    await fake([], "hang");
    expect((await askWith()).outcome).toMatchObject({ kind: "fallback", reason: expect.stringContaining("was not ready") });
  });

  it("after `go`, a lost server is an error (exit 1, said on stderr), never a second run", async () => {
    await fake([{ kind: "ready" }], "close");
    const lost = await askWith();
    expect(lost.outcome).toEqual({ kind: "done", code: 1 });
    expect(lost.err).toMatch(/^tongs-agents: the server (closed the connection|socket error \w+) while running the command\n$/);
  });

  it("after `go`, a verb that does not finish within the bound is an error", async () => {
    await fake([{ kind: "ready" }], "hang");
    const lost = await askWith();
    expect(lost.outcome).toEqual({ kind: "done", code: 1 });
    expect(lost.err).toMatch(/did not finish within 300 ms/);
  });
});
