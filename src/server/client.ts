// The keypress client: hand a verb to the running server and print what it says. Anything short of the server taking
// the verb (no server, a stale socket, another build, a busy or stopped server) is a fallback: the caller runs the
// verb in its own process, as it would with no server at all.
import { connect } from "node:net";
import { readLines, type ClientMessage, type Reply, type TerminalInput, type VerbRequest } from "./protocol.ts";

export type ClientOutcome =
  | { readonly kind: "done"; readonly code: number }
  /** `replaced`: the server was an older build of this install and stopped; start this build's for the next key. */
  | { readonly kind: "fallback"; readonly reason: string; readonly replaced: boolean };

export interface ClientBounds {
  /** How long the server may take to be ready for the verb (it runs one at a time): then the client runs it itself. */
  readonly startMs: number;
  /** How long a verb may run after `go` before the client gives up on it (each verb bounds its own work well below). */
  readonly finishMs: number;
}

export const CLIENT_BOUNDS: ClientBounds = { startMs: 2000, finishMs: 60_000 };

/** The caller's terminal, for a terminal verb (which has no finishing bound: the user keeps it open). */
export interface ClientTerminal {
  /** Raw mode on or off, as the verb asks. */
  readonly setRaw: (on: boolean) => void;
  /** Send keys and size changes through `send` until the returned function is called. */
  readonly forward: (send: (input: TerminalInput) => void) => () => void;
}

export function askServer(
  request: VerbRequest,
  socketPath: string,
  print: { readonly stdout: (text: string) => void; readonly stderr: (text: string) => void },
  bounds: ClientBounds = CLIENT_BOUNDS,
  terminal?: ClientTerminal,
): Promise<ClientOutcome> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let started = false; // the client said `go`
    let settled = false;
    let raw = false;
    let stopForwarding: (() => void) | undefined;
    const settle = (outcome: ClientOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopForwarding?.();
      if (raw) terminal?.setRaw(false);
      socket.destroy();
      resolve(outcome);
    };
    /** Before `go` nothing ran: fall back. After it the verb ran (or is running): say so, never run it twice. */
    const lost = (why: string) => {
      if (settled) return;
      if (!started) return settle({ kind: "fallback", reason: why, replaced: false });
      print.stderr(`tongs-agents: the server ${why} while running the command\n`);
      settle({ kind: "done", code: 1 });
    };
    let timer = setTimeout(() => lost(`was not ready for the command within ${bounds.startMs} ms`), bounds.startMs);
    socket.on("error", (error: NodeJS.ErrnoException) => lost(`socket error ${error.code ?? error.message}`));
    socket.on("close", () => lost("closed the connection"));
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    readLines(
      socket,
      (message) => {
        const reply = message as Reply;
        switch (reply.kind) {
          case "refused":
            return settle({ kind: "fallback", reason: `${reply.reason}: ${reply.detail}`, replaced: reply.replaced === true });
          case "ready":
            started = true;
            clearTimeout(timer);
            socket.write(`${JSON.stringify({ kind: "go" } satisfies ClientMessage)}\n`);
            if (terminal) stopForwarding = terminal.forward((input) => socket.write(`${JSON.stringify(input)}\n`));
            else timer = setTimeout(() => lost(`did not finish within ${bounds.finishMs} ms`), bounds.finishMs);
            return;
          case "raw":
            raw = reply.on;
            return terminal?.setRaw(reply.on);
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
