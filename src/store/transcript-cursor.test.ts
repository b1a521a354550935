import { appendFileSync, renameSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { cursorPath, loadCursor, readNewLines, saveCursor, type TranscriptCursor } from "./transcript-cursor.ts";

let sandbox: Sandbox;
let file: string;
beforeEach(() => {
  sandbox = makeSandbox();
  file = join(sandbox.root, "t.jsonl");
});
afterEach(() => sandbox.cleanup());

/** Read, and hand back the texts and the cursor to continue from. */
function read(previous?: TranscriptCursor, maxBytes?: number) {
  const result = readNewLines(file, previous, maxBytes === undefined ? {} : { maxBytes });
  if (!result.ok) throw new Error(result.detail);
  return {
    texts: result.lines.map((line) => line.text),
    cursor: result.cursor,
    restarted: result.restarted,
    ends: result.lines.map((line) => line.end),
  };
}

describe("readNewLines", () => {
  it("reads each complete line once, and a partial last line only once it is complete", () => {
    writeFileSync(file, "a\nb\npart");
    const first = read();
    expect(first.texts).toEqual(["a", "b"]);
    expect(first.ends).toEqual([2, 4]);
    expect(read(first.cursor).texts).toEqual([]);
    appendFileSync(file, "ial\nc\n");
    const second = read(first.cursor);
    expect(second.texts).toEqual(["partial", "c"]);
    expect(second.restarted).toBe(false);
    expect(read(second.cursor).texts).toEqual([]);
  });

  it("bounds what one call reads and goes on where it stopped", () => {
    writeFileSync(file, "1111\n2222\n3333\n");
    const first = read(undefined, 100);
    expect(first.texts).toEqual(["1111", "2222", "3333"]);
    appendFileSync(file, "4444\n5555\n6666\n");
    const second = read(first.cursor, 12);
    expect(second.texts).toEqual(["4444", "5555"]);
    expect(read(second.cursor, 12).texts).toEqual(["6666"]);
  });

  it("starts a first read near the end, at a line boundary, when the file is larger than one read", () => {
    writeFileSync(file, "old-line-1\nold-line-2\nnew\n");
    expect(read(undefined, 8).texts).toEqual(["new"]);
    // Exactly at a boundary: the line there is whole and read.
    expect(read(undefined, 15).texts).toEqual(["old-line-2", "new"]);
  });

  it("skips a line longer than a whole read, and goes on after it", () => {
    writeFileSync(file, "");
    const start = read(undefined, 8).cursor;
    appendFileSync(file, `${"x".repeat(20)}\nok\n`);
    const first = read(start, 8);
    expect(first.texts).toEqual([]);
    let cursor = first.cursor;
    const seen: string[] = [];
    for (let call = 0; call < 5; call++) {
      const next = read(cursor, 8);
      seen.push(...next.texts);
      cursor = next.cursor;
    }
    expect(seen).toEqual(["ok"]);
  });

  it("notices a truncated file and reads it afresh", () => {
    writeFileSync(file, "a\nb\n");
    const first = read();
    truncateSync(file, 0);
    appendFileSync(file, "c\n");
    const second = read(first.cursor);
    expect(second.restarted).toBe(true);
    expect(second.texts).toEqual(["c"]);
  });

  it("notices a file replaced by another (new inode) and one rewritten in place with the same length", () => {
    writeFileSync(file, "a\nb\n");
    const first = read();
    writeFileSync(join(sandbox.root, "other"), "x\ny\nz\n");
    renameSync(join(sandbox.root, "other"), file);
    const replaced = read(first.cursor);
    expect(replaced).toMatchObject({ restarted: true, texts: ["x", "y", "z"] });
    // Same inode, same size, different bytes before the offset: the digest tells.
    writeFileSync(file, "p\nq\nr\n");
    const rewritten = read(replaced.cursor);
    expect(rewritten).toMatchObject({ restarted: true, texts: ["p", "q", "r"] });
  });

  it("refuses a symlink and a FIFO where the transcript should be, without blocking", () => {
    writeFileSync(join(sandbox.root, "real.jsonl"), "a\n");
    symlinkSync(join(sandbox.root, "real.jsonl"), file);
    expect(readNewLines(file, undefined)).toMatchObject({ ok: false, reason: "not-a-file" });
    const fifo = join(sandbox.root, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(readNewLines(fifo, undefined)).toMatchObject({ ok: false, reason: "not-a-file" });
    expect(readNewLines(join(sandbox.root, "none.jsonl"), undefined)).toMatchObject({ ok: false, reason: "missing" });
  });
});

describe("cursor files", () => {
  it("round-trip, and a damaged one reads as none", () => {
    writeFileSync(file, "a\n");
    const { cursor } = read();
    const where = cursorPath(sandbox.stateDir, "c".repeat(64));
    expect(saveCursor(sandbox.stateDir, where, cursor)).toBe(true);
    expect(loadCursor(where)).toEqual(cursor);
    writeFileSync(where, "{ not json");
    expect(loadCursor(where)).toBeUndefined();
    writeFileSync(where, JSON.stringify({ ...cursor, offset: -1 }));
    expect(loadCursor(where)).toBeUndefined();
  });
});
