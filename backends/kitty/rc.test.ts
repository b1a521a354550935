import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FakeKitty } from "../../test/fake-kitty.ts";
import { frame, parseListenOn, parseReply, sendCommand } from "./rc.ts";

describe("parseListenOn", () => {
  it.each([
    ["unix:/tmp/kitty-4242", { kind: "unix", path: "/tmp/kitty-4242" }],
    ["unix:/tmp/dir with space/kitty", { kind: "unix", path: "/tmp/dir with space/kitty" }],
    ["unix:@mykitty-4242", { kind: "unix", path: "\0mykitty-4242" }],
    ["tcp:localhost:12488", { kind: "tcp", host: "localhost", port: 12488 }],
    ["tcp:[::1]:12488", { kind: "tcp", host: "::1", port: 12488 }],
  ] as const)("%s", (value, address) => {
    expect(parseListenOn(value)).toEqual(address);
  });

  it.each(["unix:", "fd:3", "/tmp/kitty", "tcp:localhost", ""])("leaves %j to the CLI", (value) => {
    expect(parseListenOn(value)).toBeUndefined();
  });
});

describe("frames", () => {
  it("wraps the command in ESC P @kitty-cmd ... ESC \\ with the version this client speaks", () => {
    expect(frame("focus-window", { match: "id:3" })).toBe(
      '\x1bP@kitty-cmd{"cmd":"focus-window","version":[0,26,5],"no_response":false,"payload":{"match":"id:3"}}\x1b\\',
    );
    expect(frame("ls")).toBe('\x1bP@kitty-cmd{"cmd":"ls","version":[0,26,5],"no_response":false}\x1b\\');
  });

  it("reads replies as kitty 0.26.5 sends them, and rejects anything else", () => {
    expect(parseReply('\x1bP@kitty-cmd{"ok": true}\x1b\\')).toEqual({ kind: "ok", data: undefined });
    expect(parseReply('\x1bP@kitty-cmd{"ok": true, "data": "[]"}\x1b\\')).toEqual({ kind: "ok", data: "[]" });
    expect(parseReply('\x1bP@kitty-cmd{"ok": false, "error": "No matching windows for expression: id:99"}\x1b\\')).toEqual({
      kind: "error",
      error: "No matching windows for expression: id:99",
    });
    expect(parseReply('\x1bP@kitty-cmd{"ok": false, "error": "x", "tb": "Traceback ..."}\x1b\\')).toEqual({ kind: "error", error: "x" });
    expect(parseReply('{"ok": true}')).toBeUndefined();
    expect(parseReply("\x1bP@kitty-cmd{not json}\x1b\\")).toBeUndefined();
    expect(parseReply('\x1bP@kitty-cmd{"status": "fine"}\x1b\\')).toBeUndefined();
  });
});

describe("sendCommand over a unix socket", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function started(kitty: FakeKitty): Promise<FakeKitty> {
    await kitty.listen();
    cleanups.push(() => kitty.close());
    return kitty;
  }

  it("sends exactly one frame and reads kitty's reply (kitty keeps the connection open; the client closes)", async () => {
    const kitty = await started(new FakeKitty());
    const { window } = kitty.osWindow();
    const address = parseListenOn(kitty.listenOn);
    if (!address) throw new Error("unparsed");
    expect(await sendCommand(address, "focus-window", { match: `id:${window}` })).toEqual({ kind: "ok", data: undefined });
    expect(kitty.frames).toEqual([frame("focus-window", { match: `id:${window}` })]);
    const listed = await sendCommand(address, "ls");
    expect(listed.kind).toBe("ok");
    expect(JSON.parse((listed as { data: string }).data)).toHaveLength(1);
    expect(await sendCommand(address, "focus-window", { match: "id:99" })).toEqual({
      kind: "error",
      error: "No matching windows for expression: id:99",
    });
  });

  it("no reply in time, a closed connection and a missing socket are told apart", async () => {
    const silent = await started(new FakeKitty({ silent: true }));
    const address = parseListenOn(silent.listenOn);
    if (!address) throw new Error("unparsed");
    expect(await sendCommand(address, "ls", undefined, 150)).toEqual({ kind: "no-reply", detail: "no reply within 150 ms" });
    expect(silent.frames).toHaveLength(1);

    const dir = mkdtempSync(join(tmpdir(), "kitty-rc-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const closing = createServer((socket) => socket.resume().end());
    await new Promise<void>((resolve) => closing.listen(join(dir, "closing"), resolve));
    cleanups.push(() => new Promise((resolve) => closing.close(() => resolve())));
    expect(await sendCommand({ kind: "unix", path: join(dir, "closing") }, "ls")).toEqual({
      kind: "no-reply",
      detail: "kitty closed the connection without replying",
    });

    const gone = await sendCommand({ kind: "unix", path: join(dir, "no-such-socket") }, "ls");
    expect(gone).toMatchObject({ kind: "unreachable", detail: expect.stringContaining("ENOENT") });
  });

  it("reassembles a reply split across reads, even between ESC and backslash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kitty-rc-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const reply = '\x1bP@kitty-cmd{"ok": true, "data": "[{\\"id\\": 1}]"}\x1b\\';
    const cut = reply.length - 1;
    const server = createServer((socket) => {
      socket.once("data", () => {
        socket.write(reply.slice(0, 5));
        setTimeout(() => socket.write(reply.slice(5, cut)), 10);
        setTimeout(() => socket.write(reply.slice(cut)), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(join(dir, "split"), resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    expect(await sendCommand({ kind: "unix", path: join(dir, "split") }, "ls")).toEqual({ kind: "ok", data: '[{"id": 1}]' });
  });

  it("a reply that is not a kitty frame is no reply at all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kitty-rc-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = createServer((socket) => socket.once("data", () => socket.write("\x1bP@kitty-cmd<html>\x1b\\")));
    await new Promise<void>((resolve) => server.listen(join(dir, "odd"), resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    expect(await sendCommand({ kind: "unix", path: join(dir, "odd") }, "ls")).toEqual({
      kind: "no-reply",
      detail: "the reply is not a kitty remote-control frame",
    });
  });
});
