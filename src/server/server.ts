// The keypress server (docs/server.md): one per state dir, started by the tmux block or `tongs-agents serve`. It keeps
// the CLI's code loaded, so a key pays for a small client process and the verb's own work, not for starting Node and
// loading a verb. It holds no fleet of its own: every verb reads the records as its own process would, with the
// client's environment and directory handed to it as its context (the server's own never change), so the answer is
// the one the verb gives without a server. Short verbs run one at a time, in the order they came; the picker, open as
// long as the user keeps it, runs beside them. The socket lives in a private directory of the state dir (0700, owned
// by this user), so only this user reaches it.
import { accessSync, constants, lstatSync, realpathSync, rmSync, statSync, watch, type FSWatcher } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { ensurePrivateDir } from "../store/paths.ts";
import { CLIENT_BOUNDS } from "./client.ts";
import { socketConnection, type Answers, type Connection } from "./connection.ts";
import { probe } from "./control.ts";
import { listenForKeys, type KeysListener } from "./keys.ts";
import { remoteTerminal, type VerbTerminal } from "./remote-terminal.ts";
import {
  readLines,
  serverDirOf,
  SERVED_VERBS,
  SOCKET_PATH_MAX,
  socketPathOf,
  TERMINAL_VERBS,
  type ClientMessage,
  OUTPUT_PIECE,
  type Reply,
  type Request,
  type ServerStatus,
  type TerminalSize,
  type VerbRequest,
} from "./protocol.ts";

/** The client's world, which the verb runs in: its environment and working directory. */
export interface Caller {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** Run one verb for `caller`: `io` prints to the client; a terminal verb also draws on the client's terminal. */
export type RunVerb = (
  argv: readonly string[],
  caller: Caller,
  io: { stdout: (text: string) => void; stderr: (text: string) => void; color: boolean; columns: number; terminal?: VerbTerminal },
) => Promise<number>;

export interface ServerOptions {
  readonly stateDir: string;
  readonly build: string;
  /** The real path of this install's bin/tongs-agents.js (a client of another build there is an upgrade). */
  readonly install: string;
  readonly run: RunVerb;
  readonly log: (line: string) => void;
  /** How long a connection may take to send its request, and to say `go` once told `ready`. */
  readonly requestMs?: number;
  /** How long a short verb may run before the server gives up on itself (stops without waiting for it). */
  readonly verbBoundMs?: number;
}

export type StartOutcome =
  | { readonly kind: "serving"; readonly stop: (why: string) => void; readonly stopped: Promise<Stopped> }
  | { readonly kind: "running"; readonly status: ServerStatus }
  | { readonly kind: "refused"; readonly detail: string };

function isVerbRequest(value: unknown): value is VerbRequest {
  const request = value as Partial<VerbRequest>;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof request.build === "string" &&
    typeof request.install === "string" &&
    Array.isArray(request.argv) &&
    request.argv.every((word) => typeof word === "string") &&
    typeof request.cwd === "string" &&
    typeof request.env === "object" &&
    request.env !== null &&
    Object.values(request.env).every((entry) => typeof entry === "string") &&
    typeof request.color === "boolean" &&
    typeof request.columns === "number" &&
    (request.terminal === undefined || (typeof request.terminal.columns === "number" && typeof request.terminal.rows === "number"))
  );
}

function listen(server: Server, path: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    server.once("error", resolve);
    server.listen(path, () => {
      server.off("error", resolve);
      resolve(undefined);
    });
  });
}

/** Why the server stopped; `abandoned`: a verb never finished, so it stopped without waiting (its process must exit). */
export interface Stopped {
  readonly why: string;
  readonly abandoned: boolean;
}

/**
 * Serve the state dir's socket until stopped. When a server already answers there, say so and do nothing; a socket
 * nobody answers (a server that died) is removed first.
 */
export async function startServer(options: ServerOptions): Promise<StartOutcome> {
  const { stateDir, build, install, run, log, requestMs = 2000, verbBoundMs = CLIENT_BOUNDS.finishMs } = options;
  for (const dir of [stateDir, serverDirOf(stateDir)]) {
    const check = ensurePrivateDir(dir);
    if (!check.ok) return { kind: "refused", detail: check.detail };
  }
  const socketPath = socketPathOf(stateDir);
  if (Buffer.byteLength(socketPath) > SOCKET_PATH_MAX)
    return { kind: "refused", detail: `${socketPath} is longer than a socket's path may be (${SOCKET_PATH_MAX} bytes)` };

  const server = createServer();
  for (let attempt = 0; ; attempt++) {
    const running = await probe(socketPath);
    if (running) return { kind: "running", status: running };
    rmSync(socketPath, { force: true });
    const error = await listen(server, socketPath);
    if (!error) break;
    // Another server started between our probe and our listen: answer as for one found running.
    if (error.code !== "EADDRINUSE" || attempt === 2)
      return { kind: "refused", detail: `cannot listen on ${socketPath}: ${error.message}` };
  }
  server.on("error", (error) => log(`socket error: ${error.message}`));
  // Device, inode and change time: an inode number alone is reused at once by the next socket made there.
  const identityOf = () => {
    const stats = lstatSync(socketPath, { bigint: true, throwIfNoEntry: false });
    return stats && `${stats.dev}:${stats.ino}:${stats.ctimeNs}`;
  };
  const identity = identityOf();
  const ownSocket = () => identityOf() === identity;
  const startedAt = new Date().toISOString();
  let served = 0;
  let servedShell = 0;
  let terminals = 0;
  const status = (): ServerStatus => ({
    pid: process.pid,
    build,
    started_at: startedAt,
    served,
    served_shell: servedShell,
    terminals,
    rss_bytes: process.memoryUsage.rss(),
  });

  let stopping: string | undefined;
  let resolveStopped: (stopped: Stopped) => void = () => {};
  const stopped = new Promise<Stopped>((resolve) => (resolveStopped = resolve));
  let watcher: FSWatcher | undefined;
  let keys: KeysListener | undefined;
  let queue: Promise<void> = Promise.resolve();
  const stop = (why: string, abandoned = false) => {
    if (stopping !== undefined) return;
    stopping = why;
    log(`stopping: ${why}`);
    watcher?.close();
    clearInterval(recheck);
    // Closing a listener unlinks its path (libuv does), whatever is there now: only when it is still ours. Otherwise
    // (a server started in our place) the listener is left to the process's exit, which unlinks nothing.
    if (ownSocket()) server.close();
    else server.unref();
    keys?.refuse();
    // The verb running now finishes and its client hears the end (unless it never will).
    const close = () => {
      keys?.close();
      resolveStopped({ why, abandoned });
    };
    if (abandoned) close();
    else void queue.then(close);
  };
  // Our socket removed or replaced (the state dir deleted, another server in our place): nobody can reach us.
  const checkSocket = () => {
    if (!ownSocket()) stop(`${socketPath} is no longer this server's socket`);
  };
  try {
    watcher = watch(serverDirOf(stateDir), checkSocket);
    watcher.on("error", checkSocket);
  } catch {
    // The directory went at once; the recheck below says so.
  }
  const recheck = setInterval(checkSocket, 30_000);

  /** Text in pieces a line can hold. */
  const sendText = (connection: Connection, kind: "out" | "err", text: string) => {
    for (let at = 0; at < text.length; at += OUTPUT_PIECE) connection.send({ kind, text: text.slice(at, at + OUTPUT_PIECE) });
  };
  const verbIo = (connection: Connection, request: VerbRequest) => ({
    stdout: (text: string) => sendText(connection, "out", `${text}\n`),
    stderr: (text: string) => sendText(connection, "err", `${text}\n`),
    color: request.color,
    columns: request.columns,
  });
  /** What Node prints for an uncaught error in the verb's own process (its stack), and its exit code. */
  const thrown = (connection: Connection, error: unknown) => {
    sendText(connection, "err", `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  };
  const finish = (connection: Connection, code: number) => {
    connection.send({ kind: "exit", code });
    connection.end();
  };

  /**
   * Say `ready` and wait for the client's `go`: a client that gave up waiting (and runs the verb itself), went away,
   * or does not answer within the request bound, never has its verb run here.
   */
  const readyAndGo = (connection: Connection, answers: Answers): Promise<boolean> => {
    if (!connection.open) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => (connection.destroy(), resolve(false)), requestMs);
      const settle = (go: boolean) => {
        clearTimeout(timer);
        cancel();
        resolve(go);
      };
      const cancel = connection.onClose(() => settle(false));
      answers.next = (message) => settle(message.kind === "go");
      connection.send({ kind: "ready" });
    });
  };

  /** A short verb, in its turn, in the client's directory (one that is gone is refused: the client runs it itself). */
  const runShort = async (connection: Connection, request: VerbRequest, answers: Answers) => {
    if (!isDirectory(request.cwd)) {
      connection.send({ kind: "refused", reason: "cwd", detail: `${request.cwd} is not a directory this server can enter` });
      connection.end();
      return;
    }
    if (!(await readyAndGo(connection, answers))) return;
    served++;
    if (connection.way === "shell") servedShell++;
    // A verb that never settles holds every later one: the server gives up on itself, and clients fall back.
    const bound = setTimeout(() => stop(`${request.argv[0]} ran longer than ${verbBoundMs} ms`, true), verbBoundMs);
    let code: number;
    try {
      code = await run(request.argv, callerOf(request), verbIo(connection, request));
    } catch (error) {
      code = thrown(connection, error);
    } finally {
      clearTimeout(bound);
    }
    finish(connection, code);
  };

  /** A terminal verb: at once, beside whatever else runs, for as long as the caller keeps it. */
  const runTerminal = async (connection: Connection, request: VerbRequest & { terminal: TerminalSize }, answers: Answers) => {
    const terminal = remoteTerminal(request.terminal, (reply) => connection.send(reply));
    if (!(await readyAndGo(connection, answers))) return;
    answers.next = (message) => message.kind !== "go" && terminal.feed(message);
    connection.onClose(() => terminal.hangUp());
    served++;
    terminals++;
    let code: number;
    try {
      code = await run(request.argv, callerOf(request), { ...verbIo(connection, request), terminal });
    } catch (error) {
      code = thrown(connection, error);
    } finally {
      terminals--;
    }
    finish(connection, code);
  };

  /** A verb request, from either way in, in its turn: a terminal verb at once, a short one after those before it. */
  const take = (request: VerbRequest, connection: Connection, answers: Answers) => {
    const verb = request.argv[0] ?? "";
    if (TERMINAL_VERBS.has(verb) && request.terminal)
      return void runTerminal(connection, { ...request, terminal: request.terminal }, answers);
    if (!SERVED_VERBS.has(verb)) {
      connection.send({ kind: "refused", reason: "verb", detail: `${request.argv[0] ?? "(none)"} is not served` });
      return connection.end();
    }
    queue = queue
      .then(() => runShort(connection, request, answers))
      .catch((error: unknown) => log(`a verb's run failed: ${String(error)}`));
  };

  server.on("connection", (socket) => {
    if (stopping !== undefined) {
      socket.destroy();
      return;
    }
    socket.on("error", () => socket.destroy());
    const connection = socketConnection(socket);
    const deadline = setTimeout(() => socket.destroy(), requestMs);
    // What the client says after its request goes to whoever waits for it.
    const answers: Answers = {};
    let asked = false;
    const answer = (reply: Reply) => {
      connection.send(reply);
      connection.end();
    };
    readLines(
      socket,
      (message) => {
        if (asked) return answers.next?.(message as ClientMessage);
        asked = true;
        clearTimeout(deadline);
        const request = message as Request;
        if (typeof request !== "object" || request === null || typeof request.build !== "string")
          return answer({ kind: "refused", reason: "request", detail: "not a request" });
        if ("control" in request && request.control === "status") return answer({ kind: "status", status: status() });
        if ("control" in request && request.control === "stop") {
          answer({ kind: "stopping", status: status() });
          return stop("asked to stop");
        }
        if (!isVerbRequest(request)) return answer({ kind: "refused", reason: "request", detail: "not a request" });
        if (request.build !== build) {
          // Another build of this same install is an upgrade: this server stops, the client starts the new build's.
          // Another install (a second copy of tongs-agents on one state dir) runs its verbs alone and leaves us be.
          const replaced = request.install === install;
          answer({ kind: "refused", reason: "build", detail: `this server is build ${build}, the client ${request.build}`, replaced });
          if (replaced) stop(`an upgrade: a client of build ${request.build} of this install asked (this server is ${build})`);
          return;
        }
        take(request, connection, answers);
      },
      () => socket.destroy(),
    );
  });
  // The shell client (bin/tongs-agents-key.sh, beside this install's bin/tongs-agents.js) comes in through a FIFO.
  const keyClient = keyClientOf(install);
  if (keyClient) keys = listenForKeys({ serverDir: serverDirOf(stateDir), keyClient, build, install, take, log });
  log(`serving ${socketPath} (pid ${process.pid}, build ${build})`);
  return { kind: "serving", stop, stopped };
}

/** The real path of the shell client beside `install` (bin/tongs-agents.js), on Linux (it needs /proc). */
function keyClientOf(install: string): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return realpathSync(join(dirname(install), "tongs-agents-key.sh"));
  } catch {
    return undefined;
  }
}

/** What a verb gets of its request: a copy of the client's environment, and its directory. */
function callerOf(request: VerbRequest): Caller {
  return { env: { ...request.env }, cwd: request.cwd };
}

function isDirectory(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
