// Asking a running server, from outside it: its status, or to stop (`serve --status`, `--stop`, an upgrade, tmux-setup
// --remove). Any build's server answers both.
import { connect } from "node:net";
import { readLines, type ControlRequest, type Reply, type ServerStatus } from "./protocol.ts";

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
