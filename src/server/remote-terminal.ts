// The client's terminal inside the server, for a terminal verb (the picker): what the verb draws goes to the client
// as output; its keys and resizes come back through the connection.
import { EventEmitter } from "node:events";
import type { Reply, TerminalInput, TerminalSize } from "./protocol.ts";

/** The caller's terminal, for a terminal verb: keys come in, drawing goes out, through the connection. */
export interface VerbTerminal {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  /** Aborted when the caller goes. */
  readonly hangup: AbortSignal;
}

/**
 * A terminal for a verb in this process that is the client's: what the verb writes is sent as output, raw mode is
 * asked of the client, keys and resizes arrive through `feed`. Only what the picker uses of a TTY stream.
 */
export function remoteTerminal(
  size: TerminalSize,
  send: (reply: Reply) => void,
): VerbTerminal & { feed(input: TerminalInput): void; hangUp(): void } {
  const input = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: (on: boolean) => (send({ kind: "raw", on }), input),
    resume: () => input,
    pause: () => input,
  });
  const output = Object.assign(new EventEmitter(), {
    isTTY: true,
    columns: size.columns,
    rows: size.rows,
    write: (text: string) => (send({ kind: "out", text }), true),
  });
  const hangup = new AbortController();
  return {
    input: input as unknown as NodeJS.ReadStream,
    output: output as unknown as NodeJS.WriteStream,
    hangup: hangup.signal,
    feed(message) {
      if (message.kind === "keys") input.emit("data", Buffer.from(message.base64, "base64"));
      else if (message.kind === "resize" && message.columns > 0 && message.rows > 0) {
        output.columns = message.columns;
        output.rows = message.rows;
        output.emit("resize");
      }
    },
    hangUp: () => hangup.abort(),
  };
}
