// kitty's remote-control protocol, spoken directly over the socket kitty listens on (KITTY_LISTEN_ON): about 1 ms a
// command, against about 290 ms for a `kitty @` process (Python start-up). https://sw.kovidgoyal.net/kitty/rc_protocol/
// A request is `ESC P @kitty-cmd <JSON> ESC \`; the reply has the same framing. kitty keeps the connection open after
// replying, so the client reads one frame and closes.
import * as z from "zod/mini";

/** The kitty version this client speaks. kitty refuses a client whose version is newer than its own (then: CLI). */
export const PROTOCOL_VERSION = [0, 26, 5] as const;

const PREFIX = "\x1bP@kitty-cmd";
const SUFFIX = "\x1b\\";
/** `ls` carries every window's environment; a reply larger than this is not kitty's. */
const MAX_REPLY_BYTES = 32 * 1024 * 1024;
/** kitty answers in about 1-5 ms; a loaded machine gets generous room before the CLI is tried. */
export const REPLY_TIMEOUT_MS = 2000;

export type ListenAddress =
  { readonly kind: "unix"; readonly path: string } | { readonly kind: "tcp"; readonly host: string; readonly port: number };

/** `unix:/path`, `unix:@name` (Linux abstract socket) or `tcp:host:port`; anything else only the CLI understands. */
export function parseListenOn(value: string): ListenAddress | undefined {
  if (value.startsWith("unix:")) {
    const path = value.slice("unix:".length);
    if (path === "") return undefined;
    return { kind: "unix", path: path.startsWith("@") ? `\0${path.slice(1)}` : path };
  }
  const tcp = /^tcp:(.+):(\d{1,5})$/.exec(value);
  if (tcp) return { kind: "tcp", host: (tcp[1] as string).replace(/^\[(.*)\]$/, "$1"), port: Number(tcp[2]) };
  return undefined;
}

export function frame(cmd: string, payload?: Record<string, unknown>): string {
  return `${PREFIX}${JSON.stringify({ cmd, version: PROTOCOL_VERSION, no_response: false, ...(payload ? { payload } : {}) })}${SUFFIX}`;
}

/**
 * - ok: kitty ran the command (`data` is what it returned; for `ls`, a JSON string).
 * - error: kitty answered with an error (`error` is its message, e.g. `No matching windows for expression: id:3`).
 * - unreachable: nothing listens there (no such socket, connection refused).
 * - no-reply: connected, but no well-formed reply in time (a kitty that wants another framing, or a hung one).
 */
export type RcReply =
  | { readonly kind: "ok"; readonly data: unknown }
  | { readonly kind: "error"; readonly error: string }
  | { readonly kind: "unreachable"; readonly detail: string }
  | { readonly kind: "no-reply"; readonly detail: string };

const ReplySchema = z.object({ ok: z.boolean(), data: z.optional(z.unknown()), error: z.optional(z.string()) });

/** Decode one reply frame; undefined when the bytes are not a complete, well-formed frame. */
export function parseReply(text: string): RcReply | undefined {
  if (!text.startsWith(PREFIX) || !text.endsWith(SUFFIX)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text.slice(PREFIX.length, -SUFFIX.length));
  } catch {
    return undefined;
  }
  const reply = ReplySchema.safeParse(json);
  if (!reply.success) return undefined;
  // The traceback kitty adds to some errors (`tb`) is dropped: the message is enough, and it is long.
  return reply.data.ok
    ? { kind: "ok", data: reply.data.data }
    : { kind: "error", error: reply.data.error ?? "kitty refused the command without a message" };
}

export type SendCommand = (address: ListenAddress, cmd: string, payload?: Record<string, unknown>) => Promise<RcReply>;

/** Send one command and read its reply. Never throws; never waits longer than `timeoutMs`. */
export function sendCommand(
  address: ListenAddress,
  cmd: string,
  payload?: Record<string, unknown>,
  timeoutMs = REPLY_TIMEOUT_MS,
): Promise<RcReply> {
  return new Promise((resolve) => {
    // node:net is required on use: every focus bundles this backend, and only kitty's needs sockets and streams.
    const { connect } = process.getBuiltinModule("node:net");
    const socket = address.kind === "unix" ? connect({ path: address.path }) : connect({ host: address.host, port: address.port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (reply: RcReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(() => finish({ kind: "no-reply", detail: `no reply within ${timeoutMs} ms` }), timeoutMs);
    socket.on("connect", () => socket.write(frame(cmd, payload)));
    socket.on("data", (chunk: Buffer) => {
      const searchFrom = Math.max(PREFIX.length, received.length - 1);
      received = Buffer.concat([received, chunk]);
      if (received.length > MAX_REPLY_BYTES) return finish({ kind: "no-reply", detail: `reply larger than ${MAX_REPLY_BYTES} bytes` });
      // JSON escapes ESC, so the first ESC \ after the prefix ends the frame.
      const end = received.indexOf(SUFFIX, searchFrom);
      if (end >= 0)
        finish(
          parseReply(received.subarray(0, end + SUFFIX.length).toString("utf8")) ?? {
            kind: "no-reply",
            detail: "the reply is not a kitty remote-control frame",
          },
        );
    });
    socket.on("end", () => finish({ kind: "no-reply", detail: "kitty closed the connection without replying" }));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const unreachable = error.code === "ENOENT" || error.code === "ECONNREFUSED" || error.code === "ENOTSOCK" || error.code === "EACCES";
      finish(
        unreachable ? { kind: "unreachable", detail: `${error.code}: ${error.message}` } : { kind: "no-reply", detail: error.message },
      );
    });
  });
}
