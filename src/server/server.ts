// The keypress server (docs/server.md): one per state dir, started by the tmux block or `tongs-agents serve`. It keeps
// the CLI's code loaded, so a key pays for a small client process and the verb's own work, not for starting Node and
// loading a verb. It holds no fleet of its own: every verb reads the records as its own process would, in the
// client's environment and directory, so the answer is the one the verb gives without a server. Verbs run one at a
// time (the environment is the process's). The socket lives in a private directory of the state dir (0700, owned by
// this user), so only this user reaches it.
import { lstatSync, rmSync, watch, type FSWatcher } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { ensurePrivateDir } from "../store/paths.ts";
import {
  readLines,
  serverDirOf,
  SERVED_VERBS,
  SOCKET_PATH_MAX,
  socketPathOf,
  type ControlRequest,
  type Reply,
  type Request,
  type ServerStatus,
  type VerbRequest,
} from "./protocol.ts";

/** Run one verb: `io` prints to the client. The environment and directory are already the client's. */
export type RunVerb = (
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: { stdout: (text: string) => void; stderr: (text: string) => void; color: boolean; columns: number },
) => Promise<number>;

export interface ServerOptions {
  readonly stateDir: string;
  readonly build: string;
  readonly run: RunVerb;
  readonly log: (line: string) => void;
  /** How long a connection may take to send its request. */
  readonly requestMs?: number;
}

export type StartOutcome =
  | { readonly kind: "serving"; readonly stop: (why: string) => void; readonly stopped: Promise<string> }
  | { readonly kind: "running"; readonly status: ServerStatus }
  | { readonly kind: "refused"; readonly detail: string };

function isVerbRequest(value: unknown): value is VerbRequest {
  const request = value as Partial<VerbRequest>;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof request.build === "string" &&
    Array.isArray(request.argv) &&
    request.argv.every((word) => typeof word === "string") &&
    typeof request.cwd === "string" &&
    typeof request.env === "object" &&
    request.env !== null &&
    Object.values(request.env).every((entry) => typeof entry === "string") &&
    typeof request.color === "boolean" &&
    typeof request.columns === "number"
  );
}

/**
 * Send a control request to whatever listens on `socketPath`: the server's status when it answers as asked (`status`,
 * or `stopping` for stop, which any build's server honours); undefined when nothing answers (no socket, a stale one).
 */
function control(socketPath: string, ask: ControlRequest["control"], timeoutMs: number): Promise<ServerStatus | undefined> {
  const answer = ask === "status" ? "status" : "stopping";
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const done = (status: ServerStatus | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on("error", () => done(undefined));
    socket.on("close", () => done(undefined));
    socket.on("connect", () => socket.write(`${JSON.stringify({ build: "", control: ask })}\n`));
    readLines(
      socket,
      (message) => {
        const reply = message as Reply;
        done(reply.kind === answer ? reply.status : undefined);
      },
      () => done(undefined),
    );
  });
}

/** The status of the server on `socketPath`; undefined when none answers. */
export const probe = (socketPath: string, timeoutMs = 2000) => control(socketPath, "status", timeoutMs);

/** Poll `check` every 50 ms until it gives a value or `ms` have passed. */
export async function until<T>(check: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** How long stopping waits for the server to be gone (it finishes the verb it is running first). */
export const STOP_WAIT_MS = 5000;

/** Stop the server on `socketPath`, and wait until it no longer answers; its status when one was running. */
export async function stopServer(socketPath: string): Promise<ServerStatus | undefined> {
  const stopped = await control(socketPath, "stop", 2000);
  if (stopped) await until(async () => ((await probe(socketPath, 500)) === undefined ? true : undefined), STOP_WAIT_MS);
  return stopped;
}

/** Replace this process's environment with `env` (the object itself: child processes and os.homedir() read it). */
function replaceEnv(env: Readonly<Record<string, string | undefined>>): void {
  for (const name of Object.keys(process.env)) if (!Object.hasOwn(env, name)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
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

/**
 * Serve the state dir's socket until stopped. When a server already answers there, say so and do nothing; a socket
 * nobody answers (a server that died) is removed first.
 */
export async function startServer(options: ServerOptions): Promise<StartOutcome> {
  const { stateDir, build, run, log, requestMs = 2000 } = options;
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
  // Device, inode and change time: an inode number alone is reused at once by the next socket made there.
  const identityOf = () => {
    const stats = lstatSync(socketPath, { bigint: true, throwIfNoEntry: false });
    return stats && `${stats.dev}:${stats.ino}:${stats.ctimeNs}`;
  };
  const identity = identityOf();
  const ownSocket = () => identityOf() === identity;
  const startedAt = new Date().toISOString();
  let served = 0;
  const status = (): ServerStatus => ({
    pid: process.pid,
    build,
    started_at: startedAt,
    served,
    rss_bytes: process.memoryUsage.rss(),
  });

  let stopping: string | undefined;
  let resolveStopped: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => (resolveStopped = resolve));
  let watcher: FSWatcher | undefined;
  let queue: Promise<void> = Promise.resolve();
  const stop = (why: string) => {
    if (stopping !== undefined) return;
    stopping = why;
    log(`stopping: ${why}`);
    watcher?.close();
    clearInterval(recheck);
    // Closing a listener unlinks its path (libuv does), whatever is there now: only when it is still ours. Otherwise
    // (a server started in our place) the listener is left to the process's exit, which unlinks nothing.
    if (ownSocket()) server.close();
    else server.unref();
    // The verb running now finishes and its client hears the end.
    void queue.then(() => resolveStopped(why));
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

  const send = (socket: Socket, reply: Reply) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
  };
  const runFor = async (socket: Socket, request: VerbRequest) => {
    // The client gave up waiting (it runs the verb itself) or went: never run it a second time.
    if (socket.destroyed || socket.readableEnded) return;
    const savedEnv = { ...process.env };
    const savedCwd = process.cwd();
    try {
      process.chdir(request.cwd);
    } catch (error) {
      send(socket, { kind: "refused", reason: "cwd", detail: (error as Error).message });
      socket.end();
      return;
    }
    send(socket, { kind: "started" });
    served++;
    replaceEnv(request.env);
    let code: number;
    try {
      code = await run(request.argv, process.env, {
        stdout: (text) => send(socket, { kind: "out", text: `${text}\n` }),
        stderr: (text) => send(socket, { kind: "err", text: `${text}\n` }),
        color: request.color,
        columns: request.columns,
      });
    } catch (error) {
      // What Node prints for an uncaught error in the verb's own process, and its exit code.
      send(socket, { kind: "err", text: `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n` });
      code = 1;
    } finally {
      replaceEnv(savedEnv);
      process.chdir(savedCwd);
    }
    send(socket, { kind: "exit", code });
    socket.end();
  };

  server.on("connection", (socket) => {
    if (stopping !== undefined) {
      socket.destroy();
      return;
    }
    socket.on("error", () => socket.destroy());
    const deadline = setTimeout(() => socket.destroy(), requestMs);
    let answered = false;
    readLines(
      socket,
      (message) => {
        if (answered) return;
        answered = true;
        clearTimeout(deadline);
        const request = message as Request;
        if (typeof request !== "object" || request === null || typeof request.build !== "string") {
          send(socket, { kind: "refused", reason: "request", detail: "not a request" });
          return socket.end();
        }
        if ("control" in request && request.control === "status") {
          send(socket, { kind: "status", status: status() });
          return socket.end();
        }
        if ("control" in request && request.control === "stop") {
          send(socket, { kind: "stopping", status: status() });
          socket.end();
          return stop("asked to stop");
        }
        if (request.build !== build) {
          send(socket, { kind: "refused", reason: "build", detail: `this server is build ${build}, the client ${request.build}` });
          socket.end();
          // A client of another build is a newer (or older) install: it runs its verb itself and starts its own server.
          return stop(`a client of build ${request.build} asked (this server is ${build})`);
        }
        if (!isVerbRequest(request)) {
          send(socket, { kind: "refused", reason: "request", detail: "not a request" });
          return socket.end();
        }
        if (!SERVED_VERBS.has(request.argv[0] ?? "")) {
          send(socket, { kind: "refused", reason: "verb", detail: `${request.argv[0] ?? "(none)"} is not served` });
          return socket.end();
        }
        queue = queue.then(() => runFor(socket, request));
      },
      () => socket.destroy(),
    );
  });
  log(`serving ${socketPath} (pid ${process.pid}, build ${build})`);
  return { kind: "serving", stop, stopped };
}
