// A connection to the D-Bus session bus, spoken directly over its unix socket (no dbus library, no gdbus process):
// EXTERNAL authentication, Hello, method calls with a bound on every reply, and signals. One connection both sends a
// notification and hears its ActionInvoked signal: servers such as dunst and GNOME Shell send that signal only to the
// connection that sent the notification.
import { existsSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { join } from "node:path";
import { MESSAGE_TYPE, decodeMessage, encodeMessage, type DbusMessage } from "./dbus-wire.ts";

export type BusAddress = { readonly path: string; readonly description: string };

export type AddressLookup = { ok: true; addresses: BusAddress[] } | { ok: false; detail: string };

/**
 * Where the session bus listens: DBUS_SESSION_BUS_ADDRESS (its unix `path=` and `abstract=` entries, in order), else
 * the systemd user bus at $XDG_RUNTIME_DIR/bus. Over SSH or in a container there is usually neither.
 */
export function sessionBusAddresses(env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync): AddressLookup {
  const value = env.DBUS_SESSION_BUS_ADDRESS;
  if (value) {
    const addresses: BusAddress[] = [];
    for (const entry of value.split(";")) {
      const colon = entry.indexOf(":");
      if (colon < 0 || entry.slice(0, colon) !== "unix") continue;
      const keys = new Map(
        entry
          .slice(colon + 1)
          .split(",")
          .map((pair) => [pair.slice(0, pair.indexOf("=")), decodeAddressValue(pair.slice(pair.indexOf("=") + 1))] as const),
      );
      const path = keys.get("path");
      const abstract = keys.get("abstract");
      if (path) addresses.push({ path, description: `unix:path=${path}` });
      else if (abstract) addresses.push({ path: `\0${abstract}`, description: `unix:abstract=${abstract}` });
    }
    return addresses.length > 0
      ? { ok: true, addresses }
      : { ok: false, detail: `DBUS_SESSION_BUS_ADDRESS has no unix path or abstract socket (${value.slice(0, 120)})` };
  }
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && runtime.startsWith("/") && exists(join(runtime, "bus")))
    return { ok: true, addresses: [{ path: join(runtime, "bus"), description: `${join(runtime, "bus")} (XDG_RUNTIME_DIR)` }] };
  return { ok: false, detail: "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus" };
}

/** Address values escape bytes as %XX. */
function decodeAddressValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export type Reply =
  { readonly ok: true; readonly body: readonly unknown[] } | { readonly ok: false; readonly error: string; readonly detail: string };

export interface MethodCall {
  readonly destination: string;
  readonly path: string;
  readonly interface: string;
  readonly member: string;
  readonly signature?: string;
  readonly body?: readonly unknown[];
}

export interface BusConnection {
  /** This connection's unique name (`:1.42`). */
  readonly name: string;
  call(call: MethodCall, timeoutMs: number): Promise<Reply>;
  /** Every signal that reaches this connection. */
  onSignal(listener: (message: DbusMessage) => void): void;
  /** Called once when the bus closes the connection (or it breaks). */
  onClose(listener: () => void): void;
  close(): void;
}

export type Connect = { ok: true; connection: BusConnection } | { ok: false; detail: string };

const DBUS = { destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus" };

/** Connect to the first address that answers, authenticate, and say Hello; everything within `timeoutMs`. */
export async function connectBus(
  addresses: readonly BusAddress[],
  timeoutMs: number,
  uid: number = process.getuid?.() ?? 0,
): Promise<Connect> {
  const failures: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (const address of addresses) {
    const attempt = await connectOne(address, Math.max(1, deadline - Date.now()), uid);
    if (attempt.ok) return attempt;
    failures.push(`${address.description}: ${attempt.detail}`);
  }
  return { ok: false, detail: failures.join("; ") };
}

function connectOne(address: BusAddress, timeoutMs: number, uid: number): Promise<Connect> {
  return new Promise((resolve) => {
    const socket = createConnection({ path: address.path });
    let settled = false;
    const finish = (result: Connect) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!result.ok) socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once("error", (error: NodeJS.ErrnoException) => finish({ ok: false, detail: error.code ?? error.message }));
    socket.once("close", () => finish({ ok: false, detail: "the bus closed the connection" }));
    let pending = "";
    const onAuthData = (chunk: Buffer) => {
      pending += chunk.toString("latin1");
      const end = pending.indexOf("\r\n");
      if (end < 0) {
        if (pending.length > 4096) finish({ ok: false, detail: "authentication reply too long" });
        return;
      }
      const line = pending.slice(0, end);
      socket.off("data", onAuthData);
      if (!line.startsWith("OK ")) return finish({ ok: false, detail: `authentication refused (${line.slice(0, 80)})` });
      socket.write("BEGIN\r\n");
      const connection = new Connection(socket, Buffer.from(pending.slice(end + 2), "latin1"));
      connection
        .call({ ...DBUS, member: "Hello" }, Math.max(1, timeoutMs))
        .then((hello) => {
          if (!hello.ok || typeof hello.body[0] !== "string")
            return finish({ ok: false, detail: `Hello failed: ${hello.ok ? "no name" : hello.detail}` });
          connection.name = hello.body[0];
          finish({ ok: true, connection });
        })
        .catch((error: unknown) => finish({ ok: false, detail: String(error) }));
    };
    socket.once("connect", () => {
      socket.on("data", onAuthData);
      // EXTERNAL: the bus checks our uid on the socket; we state it, in hex of its decimal digits.
      socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(uid), "ascii").toString("hex")}\r\n`);
    });
  });
}

class Connection implements BusConnection {
  name = "";
  private serial = 0;
  private input: Buffer;
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private readonly signalListeners: ((message: DbusMessage) => void)[] = [];
  private readonly closeListeners: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly socket: Socket,
    leftover: Buffer,
  ) {
    this.input = leftover;
    socket.removeAllListeners("close");
    socket.removeAllListeners("error");
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", () => this.shutdown());
    socket.on("close", () => this.shutdown());
  }

  private receive(chunk: Buffer): void {
    this.input = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    for (;;) {
      const decoded = decodeMessage(this.input);
      if (decoded.kind === "incomplete") return;
      if (decoded.kind === "invalid") return this.close();
      this.input = this.input.subarray(decoded.size);
      this.dispatch(decoded.message);
    }
  }

  private dispatch(message: DbusMessage): void {
    if (message.type === MESSAGE_TYPE.signal) {
      for (const listener of this.signalListeners) listener(message);
      return;
    }
    if (message.replySerial === undefined) return;
    const resolve = this.waiting.get(message.replySerial);
    if (!resolve) return;
    this.waiting.delete(message.replySerial);
    if (message.type === MESSAGE_TYPE.methodReturn) resolve({ ok: true, body: message.body });
    else if (message.type === MESSAGE_TYPE.error)
      resolve({
        ok: false,
        error: message.errorName ?? "error",
        detail: `${message.errorName ?? "error"}: ${typeof message.body[0] === "string" ? message.body[0] : ""}`,
      });
  }

  call(call: MethodCall, timeoutMs: number): Promise<Reply> {
    if (this.closed) return Promise.resolve({ ok: false, error: "closed", detail: "the bus connection is closed" });
    const serial = ++this.serial;
    const { signature = "", body = [], ...header } = call;
    let bytes: Buffer;
    try {
      bytes = encodeMessage({ type: MESSAGE_TYPE.methodCall, flags: 0, serial, ...header, signature, body });
    } catch (error) {
      return Promise.resolve({ ok: false, error: "encode", detail: `cannot encode ${call.member}: ${(error as Error).message}` });
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(serial);
        resolve({ ok: false, error: "timeout", detail: `${call.destination} did not answer ${call.member} within ${timeoutMs} ms` });
      }, timeoutMs);
      this.waiting.set(serial, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.socket.write(bytes);
    });
  }

  onSignal(listener: (message: DbusMessage) => void): void {
    this.signalListeners.push(listener);
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [serial, resolve] of this.waiting) {
      this.waiting.delete(serial);
      resolve({ ok: false, error: "closed", detail: "the bus closed the connection" });
    }
    for (const listener of this.closeListeners) listener();
  }

  close(): void {
    this.socket.destroy();
    this.shutdown();
  }
}
