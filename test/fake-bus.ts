// A stand-in session bus with a notification server on it, for unit tests (the live suites use the real dbus-daemon and
// dunst): a unix socket that accepts EXTERNAL authentication, answers Hello and AddMatch as the bus does, and answers
// org.freedesktop.Notifications calls as a server would, or not at all (`hung`), or with ServiceUnknown (`absent`).
// It speaks the wire format through src/notify/dbus-wire.ts, so it checks what our client sends against our own
// encoder; byte-level conformance with the real daemon is what the live suite proves.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MESSAGE_TYPE, decodeMessage, encodeMessage, type DbusMessage } from "../src/notify/dbus-wire.ts";

export type ServerMode = "answers" | "hung" | "absent";

/** The notification server's unique name on this bus (the bus itself plays it). */
export const SERVER_NAME = ":1.0";

export interface Notified {
  readonly id: number;
  readonly sender: string;
  readonly body: readonly unknown[];
}

export class FakeBus {
  readonly dir = mkdtempSync(join(tmpdir(), "tongs-fake-bus-"));
  readonly path = join(this.dir, "bus");
  readonly notified: Notified[] = [];
  readonly closedIds: number[] = [];
  private server: Server | undefined;
  private readonly sockets = new Map<string, Socket>();
  private connections = 0;
  private serial = 0;
  private nextId = 1;

  constructor(
    public mode: ServerMode = "answers",
    public capabilities: readonly string[] = ["actions", "body", "body-markup"],
  ) {}

  get address(): string {
    return `unix:path=${this.path}`;
  }

  async start(): Promise<this> {
    this.server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve) => this.server?.listen(this.path, resolve));
    return this;
  }

  private accept(socket: Socket): void {
    const name = `:1.${++this.connections}`;
    this.sockets.set(name, socket);
    let buffer = Buffer.alloc(0);
    let authenticated = false;
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!authenticated) {
        const text = buffer.toString("latin1");
        if (text.includes("AUTH EXTERNAL") && !text.includes("BEGIN\r\n") && text.endsWith("\r\n"))
          socket.write("OK 0123456789abcdef0123456789abcdef\r\n");
        const begin = text.indexOf("BEGIN\r\n");
        if (begin < 0) return;
        authenticated = true;
        buffer = buffer.subarray(begin + "BEGIN\r\n".length);
      }
      for (;;) {
        const decoded = decodeMessage(buffer);
        if (decoded.kind !== "message") return;
        buffer = buffer.subarray(decoded.size);
        this.handle(name, socket, decoded.message);
      }
    });
  }

  private reply(socket: Socket, to: DbusMessage, signature: string, body: readonly unknown[]): void {
    socket.write(
      encodeMessage({ type: MESSAGE_TYPE.methodReturn, flags: 0, serial: ++this.serial, replySerial: to.serial, signature, body }),
    );
  }

  private handle(name: string, socket: Socket, message: DbusMessage): void {
    if (message.destination === "org.freedesktop.DBus") {
      // The notification server's unique name is SERVER_NAME (when there is one: `absent` has none).
      if (message.member === "GetNameOwner" && this.mode !== "absent") return this.reply(socket, message, "s", [SERVER_NAME]);
      this.reply(socket, message, message.member === "Hello" ? "s" : "", message.member === "Hello" ? [name] : []);
      return;
    }
    if (this.mode === "hung") return;
    if (this.mode === "absent") {
      socket.write(
        encodeMessage({
          type: MESSAGE_TYPE.error,
          flags: 0,
          serial: ++this.serial,
          replySerial: message.serial,
          errorName: "org.freedesktop.DBus.Error.ServiceUnknown",
          signature: "s",
          body: ["The name is not activatable"],
        }),
      );
      return;
    }
    switch (message.member) {
      case "GetServerInformation":
        return this.reply(socket, message, "ssss", ["fake-notifier", "tongs", "1.0", "1.2"]);
      case "GetCapabilities":
        return this.reply(socket, message, "as", [this.capabilities]);
      case "Notify": {
        const id = this.nextId++;
        this.notified.push({ id, sender: name, body: message.body });
        return this.reply(socket, message, "u", [id]);
      }
      case "CloseNotification":
        this.reply(socket, message, "", []);
        this.closedIds.push(Number(message.body[0]));
        return this.signal(Number(message.body[0]), "NotificationClosed", "uu", [Number(message.body[0]), 3]);
    }
  }

  /**
   * Send a signal about notification `id` to the connection that sent it (as dunst and GNOME Shell do), from the
   * server's unique name, or from `sender` (another client pretending to be the server).
   */
  signal(id: number, member: string, signature: string, body: readonly unknown[], sender = SERVER_NAME): void {
    const owner = this.notified.find((entry) => entry.id === id)?.sender;
    const socket = owner ? this.sockets.get(owner) : undefined;
    socket?.write(
      encodeMessage({
        type: MESSAGE_TYPE.signal,
        flags: 0,
        serial: ++this.serial,
        path: "/org/freedesktop/Notifications",
        interface: "org.freedesktop.Notifications",
        member,
        destination: owner,
        sender,
        signature,
        body,
      }),
    );
  }

  click(id: number, key = "default", sender = SERVER_NAME): void {
    this.signal(id, "ActionInvoked", "us", [id, key], sender);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets.values()) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
