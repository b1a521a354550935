// One caller of the keypress server, whichever way it came in: a Node client on the socket (one JSON message per line,
// src/server/protocol.ts) or the shell client on the FIFO (src/server/keys.ts). The server's turn-taking, `ready` and
// `go`, and the verb's output go through this, the same for both.
import type { Socket } from "node:net";
import type { ClientMessage, Reply } from "./protocol.ts";

export interface Connection {
  /** The Node client's socket or the shell client's FIFO. */
  readonly way: "socket" | "shell";
  send(reply: Reply): void;
  /** Close once what was sent is written. */
  end(): void;
  /** Close now. */
  destroy(): void;
  /** The caller can still say `go` and hear the answer. */
  readonly open: boolean;
  /** Call `listener` once when the caller goes; the returned function cancels that. */
  onClose(listener: () => void): () => void;
}

/** Where a connection's messages after its request go (set by whoever waits for them). */
export interface Answers {
  next?: (message: ClientMessage) => void;
}

export function socketConnection(socket: Socket): Connection {
  return {
    way: "socket",
    send(reply) {
      if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
    },
    end: () => void socket.end(),
    destroy: () => void socket.destroy(),
    get open() {
      return !socket.destroyed && !socket.readableEnded;
    },
    onClose(listener) {
      socket.once("close", listener);
      return () => socket.off("close", listener);
    },
  };
}
