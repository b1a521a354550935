// The shell client's way into the keypress server (docs/server.md, "The shell client"). bin/tongs-agents-key.sh writes
// one line to the server's FIFO, `keys.<server pid>.<its start time>` in the server dir: its PID, its argument count
// and the build it belongs to. The server reads that process's arguments, environment and working directory from
// /proc, which are exactly what the Node client would have sent, and answers on the client's own FIFO,
// `reply.<client pid>`, one line each: `r` (ready: the client answers `g <pid>` on our FIFO, or `c <pid>` when it
// gave up), `o`/`e` and a line of stdout/stderr, `x` and the exit code, or `f` and why it was refused (nothing ran).
// Linux only: elsewhere there is no FIFO and the shell client hands every verb to the Node client.
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { Socket } from "node:net";
import type { Writable } from "node:stream";
import { join, resolve } from "node:path";
import { parseProcStat } from "../core/proc.ts";
import type { Answers, Connection } from "./connection.ts";
import type { VerbRequest } from "./protocol.ts";

export interface KeysOptions {
  readonly serverDir: string;
  /** The real path of this install's bin/tongs-agents-key.sh: a request from any other program is refused. */
  readonly keyClient: string;
  readonly build: string;
  readonly install: string;
  /** A request read from its client's /proc, taken as one from the socket is. */
  readonly take: (request: VerbRequest, connection: Connection, answers: Answers) => void;
  readonly log: (line: string) => void;
}

export interface KeysListener {
  /** Refuse what comes from now on (the server is stopping; its FIFO is gone), still hearing `go` for what it took. */
  refuse(): void;
  close(): void;
}

/** A request line is far shorter than a pipe's atomic write (PIPE_BUF, 4096 on Linux): longer is not one. */
const LINE_MAX = 4096;

/**
 * Make `keys.<pid>` and read it. Leftovers of servers that died (their FIFOs, clients' FIFOs nobody answered) go
 * first: only one server runs per state dir, and it is this one. Undefined when no FIFO can be made here.
 */
export function listenForKeys(options: KeysOptions): KeysListener | undefined {
  const { serverDir, log } = options;
  for (const name of readdirSync(serverDir))
    if (name.startsWith("keys.") || name.startsWith("reply.")) rmSync(join(serverDir, name), { force: true });
  let reader: Socket;
  let path = "";
  try {
    // Named for this process and its start time: a FIFO left by a server killed outright is passed over by clients
    // even once another process has its PID.
    const started = parseProcStat(readFileSync("/proc/self/stat", "utf8"))?.startTime;
    if (started === undefined) throw new Error("no start time in /proc/self/stat");
    path = join(serverDir, `keys.${process.pid}.${started}`);
    // Node makes no FIFOs; this runs once, as the server starts.
    execFileSync("mkfifo", ["-m", "600", path], { stdio: "ignore" });
    // Read and write: no open end ever waits for the other, and there is never an end of file while we hold it.
    reader = new Socket({ fd: openSync(path, constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
  } catch (error) {
    log(`no FIFO for the shell client: ${(error as Error).message}`);
    if (path) rmSync(path, { force: true });
    return undefined;
  }
  reader.on("error", (error) => log(`the shell client's FIFO: ${error.message}`));
  const callers = new Map<number, { connection: Connection; answers: Answers }>();
  let refusing = false;

  const request = (pid: number, argc: number, build: string) => {
    const connection = openReply(serverDir, pid);
    if (!connection) return;
    if (refusing) return refuse(connection, "request", "the server is stopping");
    if (build !== options.build) return refuse(connection, "build", `this server is build ${options.build}, the client ${build}`);
    const client = readClient(pid, argc, options.keyClient);
    if (!client.ok) {
      log(`shell client ${pid} refused: ${client.detail}`);
      return refuse(connection, "request", client.detail);
    }
    const answers: Answers = {};
    callers.set(pid, { connection, answers });
    connection.onClose(() => callers.get(pid)?.connection === connection && callers.delete(pid));
    const { argv, env, cwd } = client;
    // What the Node client sends when its stdout is not a terminal (the shell client hands terminals to it).
    options.take({ build, install: options.install, argv, env, cwd, color: false, columns: 120 }, connection, answers);
  };
  const onLine = (line: string) => {
    const asked = /^(\d+) (\d+) (\S+)$/.exec(line);
    if (asked) return request(Number(asked[1]), Number(asked[2]), asked[3] ?? "");
    const said = /^([gc]) (\d+)$/.exec(line);
    const caller = said && callers.get(Number(said[2]));
    if (!caller) return;
    if (said?.[1] === "g") caller.answers.next?.({ kind: "go" });
    else caller.connection.destroy();
  };
  let pending = "";
  reader.setEncoding("utf8");
  reader.on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
    }
    if (pending.length > LINE_MAX) pending = "";
  });
  // A client killed before we opened its FIFO leaves it: removed once its process is gone.
  const sweep = setInterval(() => {
    for (const name of readdirSync(serverDir))
      if (/^reply\.\d+$/.test(name) && !existsSync(`/proc/${name.slice("reply.".length)}`)) rmSync(join(serverDir, name), { force: true });
  }, SWEEP_MS).unref();
  return {
    refuse() {
      refusing = true;
      rmSync(path, { force: true });
    },
    close() {
      clearInterval(sweep);
      rmSync(path, { force: true });
      reader.destroy();
    },
  };
}

/** How often FIFOs of clients that are gone are looked for. */
const SWEEP_MS = 30_000;

function refuse(connection: Connection, reason: "build" | "request", detail: string): void {
  connection.send({ kind: "refused", reason, detail });
  connection.end();
}

/**
 * The client's FIFO, opened for writing without waiting: only while the client has it open for reading (it waits in
 * that open, or reads), so a client that went away is passed over. Unlinked at once: the client holds it.
 */
function openReply(serverDir: string, pid: number): Connection | undefined {
  const path = join(serverDir, `reply.${pid}`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch {
    rmSync(path, { force: true });
    return undefined;
  }
  rmSync(path, { force: true });
  if (!fstatSync(fd).isFIFO()) {
    closeSync(fd);
    return undefined;
  }
  return fifoConnection(new Socket({ fd, readable: false, writable: true }));
}

/** Replies as the shell client reads them: one line each, text split into its lines (a piece may end mid-line). */
export function fifoConnection(out: Writable): Connection {
  out.on("error", () => out.destroy());
  const partial = { out: "", err: "" };
  const lines = (kind: "out" | "err", text: string) => {
    const prefix = kind === "out" ? "o" : "e";
    return text.split("\n").map((line) => `${prefix}${line}\n`);
  };
  const write = (text: string) => {
    if (!out.destroyed && !out.writableEnded) out.write(text);
  };
  return {
    way: "shell",
    send(reply) {
      switch (reply.kind) {
        case "ready":
          return write("r\n");
        case "refused":
          return write(`f${reply.reason}\n`);
        case "out":
        case "err": {
          const text = partial[reply.kind] + reply.text;
          const end = text.lastIndexOf("\n");
          partial[reply.kind] = text.slice(end + 1);
          if (end >= 0) write(lines(reply.kind, text.slice(0, end)).join(""));
          return;
        }
        case "exit":
          // A last line with no newline is printed with one: the shell reads whole lines.
          for (const kind of ["out", "err"] as const) if (partial[kind]) write(lines(kind, partial[kind]).join(""));
          return write(`x${reply.code}\n`);
        default:
          // The picker's terminal and the server's status are not for this client.
          return;
      }
    },
    end: () => void out.end(),
    destroy: () => void out.destroy(),
    get open() {
      return !out.destroyed && !out.writableEnded;
    },
    onClose(listener) {
      out.once("close", listener);
      return () => out.off("close", listener);
    },
  };
}

type Client = { ok: true; argv: string[]; env: Record<string, string>; cwd: string } | { ok: false; detail: string };

/**
 * A shell client's arguments, environment and directory, read from /proc: the last `argc` words of its command line
 * (`sh <key client> <node> <verb> [arguments...]`), the environment it was started with, its working directory. Only a
 * process of this user running this install's key client.
 */
export function readClient(pid: number, argc: number, keyClient: string, proc = "/proc"): Client {
  const dir = join(proc, String(pid));
  try {
    if (statSync(dir).uid !== process.getuid?.()) return { ok: false, detail: `process ${pid} is another user's` };
    const words = readFileSync(join(dir, "cmdline"), "utf8").split("\0").slice(0, -1);
    const cwd = readlinkSync(join(dir, "cwd"));
    const script = words[words.length - argc - 2];
    if (argc < 1 || script === undefined || realpathSync(resolve(cwd, script)) !== keyClient)
      return { ok: false, detail: `process ${pid} is not this install's key client` };
    const env: Record<string, string> = {};
    for (const entry of readFileSync(join(dir, "environ"), "utf8").split("\0")) {
      const equals = entry.indexOf("=");
      const name = entry.slice(0, equals);
      if (equals > 0 && !Object.hasOwn(env, name)) env[name] = entry.slice(equals + 1);
    }
    return { ok: true, argv: words.slice(-argc), env, cwd };
  } catch (error) {
    return { ok: false, detail: `cannot read process ${pid}: ${(error as Error).message}` };
  }
}
