// The reader in-process, on file descriptors of this test process: regular files, FIFOs (held open by the test),
// character devices. Sockets, anonymous pipes and terminals as a harness gives them: test/hook-stdin.test.ts.
import { spawnSync } from "node:child_process";
import { closeSync, constants, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { readStdin } from "./read-stdin.ts";

let sandbox: Sandbox;
const opened: number[] = [];
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => {
  for (const fd of opened.splice(0)) {
    try {
      closeSync(fd);
    } catch {
      // already closed by the reader
    }
  }
  sandbox.cleanup();
});

const open = (path: string, flags: number) => {
  const fd = openSync(path, flags);
  opened.push(fd);
  return fd;
};
/** Closed elsewhere: by the test itself, or by the reader (it closes a descriptor it read through libuv). */
const untracked = (fd: number) => {
  opened.splice(opened.indexOf(fd), 1);
  return fd;
};
const soon = (ms: number) => Date.now() + ms;

/** A FIFO held open by this test for writing, and a read end for the reader. */
function fifo(): { reader: number; writer: number } {
  const path = join(sandbox.root, "fifo");
  expect(spawnSync("mkfifo", [path]).status).toBe(0);
  const writer = open(path, constants.O_RDWR | constants.O_NONBLOCK);
  return { reader: open(path, constants.O_RDONLY | constants.O_NONBLOCK), writer };
}

describe("readStdin", () => {
  it("reads a regular file to its end, or to the cap", async () => {
    const path = join(sandbox.root, "payload.json");
    writeFileSync(path, "x".repeat(200_000));
    const whole = await readStdin({ fd: open(path, constants.O_RDONLY), maxBytes: 1 << 20, deadline: soon(2000) });
    expect([whole.end, whole.source, whole.bytes.equals(Buffer.from("x".repeat(200_000)))]).toEqual(["eof", "file", true]);
    const capped = await readStdin({ fd: open(path, constants.O_RDONLY), maxBytes: 100_000, deadline: soon(2000) });
    expect([capped.end, capped.bytes.length]).toEqual(["cap", 100_000]);
  });

  it("reads nothing from a character device (a terminal, /dev/null, /dev/zero)", async () => {
    for (const device of ["/dev/null", "/dev/zero"]) {
      expect(await readStdin({ fd: open(device, constants.O_RDONLY), maxBytes: 1024, deadline: soon(2000) })).toEqual({
        bytes: Buffer.alloc(0),
        end: "eof",
        source: "none",
      });
    }
  });

  it("a FIFO held open by its writer: returns what was written at the deadline, without waiting for the writer", async () => {
    const { reader, writer } = fifo();
    writeSync(writer, '{"session_id":"s"');
    const started = Date.now();
    const read = await readStdin({ fd: reader, maxBytes: 1024, deadline: soon(300) });
    expect(read).toMatchObject({ end: "deadline", source: "pipe", bytes: Buffer.from('{"session_id":"s"') });
    expect(Date.now() - started).toBeLessThan(2000); // generous: the bound is the deadline
  });

  it("a FIFO: stops as soon as the caller has enough, and reads what arrives later", async () => {
    const { reader, writer } = fifo();
    setTimeout(() => writeSync(writer, "later}"), 50);
    const read = await readStdin({
      fd: reader,
      maxBytes: 1024,
      deadline: soon(5000),
      enough: (bytes, length) => bytes[length - 1] === 0x7d,
    });
    expect(read).toMatchObject({ end: "enough", source: "pipe", bytes: Buffer.from("later}") });
  });

  it("a FIFO whose writer closed: its end", async () => {
    const { reader, writer } = fifo();
    writeSync(writer, "abc");
    closeSync(untracked(writer));
    expect(await readStdin({ fd: reader, maxBytes: 1024, deadline: soon(5000) })).toMatchObject({
      end: "eof",
      source: "pipe",
      bytes: Buffer.from("abc"),
    });
  });

  it("through libuv, a payload already written is read even when the deadline has passed (a slow start-up)", async () => {
    const { reader, writer } = fifo();
    writeSync(writer, "abc");
    const read = await readStdin({
      fd: untracked(reader),
      maxBytes: 1024,
      deadline: Date.now() - 1000,
      reopenPath: () => join(sandbox.root, "missing"),
    });
    expect(read).toMatchObject({ end: "deadline", source: "pipe", bytes: Buffer.from("abc") });
  });

  it("a pipe that cannot be re-opened (no /proc) is read through libuv instead, with the same bounds", async () => {
    const { reader, writer } = fifo();
    writeSync(writer, "abc");
    const read = await readStdin({
      fd: untracked(reader),
      maxBytes: 1024,
      deadline: soon(300),
      reopenPath: () => join(sandbox.root, "missing"),
    });
    expect(read).toMatchObject({ end: "deadline", source: "pipe", bytes: Buffer.from("abc") });
  });
});
