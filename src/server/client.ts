// The keypress client: hand a verb to the running server and print what it says. Anything short of the server taking
// the verb (no server, a stale socket, another build, a busy or stopped server) is a fallback: the caller runs the
// verb in its own process, as it would with no server at all.
import { connect } from "node:net";
import { readLines, type Reply, type VerbRequest } from "./protocol.ts";

export type ClientOutcome =
  { readonly kind: "done"; readonly code: number } | { readonly kind: "fallback"; readonly reason: string; readonly otherBuild: boolean };

export interface ClientBounds {
  /** How long the server may take to start the verb (it runs one at a time): then the client runs it itself. */
  readonly startMs: number;
  /** How long a started verb may run before the client gives up on it (each verb bounds its own work well below). */
  readonly finishMs: number;
}

export const CLIENT_BOUNDS: ClientBounds = { startMs: 2000, finishMs: 60_000 };

export function askServer(
  request: VerbRequest,
  socketPath: string,
  print: { readonly stdout: (text: string) => void; readonly stderr: (text: string) => void },
  bounds: ClientBounds = CLIENT_BOUNDS,
): Promise<ClientOutcome> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let started = false;
    let settled = false;
    const settle = (outcome: ClientOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    /** Before `started` nothing ran: fall back. After it the verb ran (or is running): say so, never run it twice. */
    const lost = (why: string) => {
      if (settled) return;
      if (!started) return settle({ kind: "fallback", reason: why, otherBuild: false });
      print.stderr(`tongs-agents: the server ${why} while running the command\n`);
      settle({ kind: "done", code: 1 });
    };
    let timer = setTimeout(() => lost(`did not start the command within ${bounds.startMs} ms`), bounds.startMs);
    socket.on("error", (error: NodeJS.ErrnoException) => lost(`socket error ${error.code ?? error.message}`));
    socket.on("close", () => lost("closed the connection"));
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    readLines(
      socket,
      (message) => {
        const reply = message as Reply;
        switch (reply.kind) {
          case "refused":
            return settle({ kind: "fallback", reason: `${reply.reason}: ${reply.detail}`, otherBuild: reply.reason === "build" });
          case "started":
            started = true;
            clearTimeout(timer);
            timer = setTimeout(() => lost(`did not finish within ${bounds.finishMs} ms`), bounds.finishMs);
            return;
          case "out":
            return print.stdout(reply.text);
          case "err":
            return print.stderr(reply.text);
          case "exit":
            return settle({ kind: "done", code: reply.code });
          default:
            return lost("sent a message this client does not know");
        }
      },
      (detail) => lost(`sent ${detail}`),
    );
  });
}
