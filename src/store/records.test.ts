import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { ensureStateDirs } from "./paths.ts";
import { listRecords, parseRecord, readJsonFile, readRecord, readTextFile, recordPath, writeJsonAtomic } from "./records.ts";
import { STALE_LOCK_MS, withRecordLock } from "./record-lock.ts";
import { sampleRecord } from "../../test/records.ts";

const DIGEST = "b".repeat(64);
const NOW = Date.parse("2026-11-29T12:00:00.000Z");

let sandbox: Sandbox;
let dir: string;
beforeEach(async () => {
  sandbox = makeSandbox();
  const dirs = await ensureStateDirs(sandbox.stateDir);
  dir = dirs.sessionsDir;
});
afterEach(() => sandbox.cleanup());

describe("state dirs", () => {
  it("creates the state and sessions dirs private (0700)", () => {
    expect(statSync(sandbox.stateDir).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("refuses a symlinked state dir or sessions dir", async () => {
    const real = join(sandbox.root, "elsewhere");
    mkdirSync(real);
    symlinkSync(real, join(sandbox.root, "linked-state"));
    expect(await ensureStateDirs(join(sandbox.root, "linked-state"))).toMatchObject({ ok: false, reason: "symlink" });
    const state = join(sandbox.root, "state2");
    mkdirSync(state, { mode: 0o700 });
    symlinkSync(real, join(state, "sessions"));
    expect(await ensureStateDirs(state)).toMatchObject({ ok: false, reason: "symlink" });
  });

  it("never changes the mode of an existing directory: a shared (sticky 1777) or readable one is refused with the reason", async () => {
    for (const mode of [0o1777, 0o755, 0o750]) {
      const state = join(sandbox.root, `open-${mode.toString(8)}`);
      mkdirSync(state);
      chmodSync(state, mode);
      const check = await ensureStateDirs(state);
      expect(check).toMatchObject({ ok: false, reason: "open-mode" });
      expect(check.ok || check.detail).toContain(`mode ${mode.toString(8).padStart(4, "0")}`);
      expect(statSync(state).mode & 0o7777).toBe(mode);
    }
    // The sessions dir inside a private state dir is held to the same rule.
    const state = join(sandbox.root, "private");
    mkdirSync(join(state, "sessions"), { recursive: true, mode: 0o700 });
    chmodSync(join(state, "sessions"), 0o711);
    expect(await ensureStateDirs(state)).toMatchObject({ ok: false, reason: "open-mode" });
    expect(statSync(join(state, "sessions")).mode & 0o7777).toBe(0o711);
  });

  it("names a plain file or FIFO in the way of a state or sessions dir for what it is", () => {
    const file = join(sandbox.root, "plain");
    writeFileSync(file, "x");
    expect(ensureStateDirs(file)).toMatchObject({ ok: false, reason: "not-a-directory", detail: `${file} is not a directory` });
    const state = join(sandbox.root, "with-fifo");
    mkdirSync(state, { mode: 0o700 });
    execFileSync("mkfifo", [join(state, "sessions")]);
    expect(ensureStateDirs(state)).toMatchObject({ ok: false, reason: "not-a-directory" });
  });

  it("uses an existing private (0700) state dir as it is", async () => {
    const state = join(sandbox.root, "ready");
    mkdirSync(state, { mode: 0o700 });
    expect(await ensureStateDirs(state)).toMatchObject({ ok: true });
    expect(statSync(join(state, "sessions")).mode & 0o777).toBe(0o700);
  });
});

describe("reading files", () => {
  it("does not follow a symlinked record", async () => {
    writeFileSync(join(sandbox.root, "target.json"), JSON.stringify(sampleRecord()));
    symlinkSync(join(sandbox.root, "target.json"), recordPath(dir, DIGEST));
    expect(await readRecord(recordPath(dir, DIGEST))).toMatchObject({ kind: "invalid", reason: "symlink" });
  });

  it("does not block on a FIFO planted as a record", async () => {
    execFileSync("mkfifo", [recordPath(dir, DIGEST)]);
    expect(await readJsonFile(recordPath(dir, DIGEST))).toMatchObject({ kind: "invalid", reason: "not-a-file" });
  });

  it("refuses files over 64 KiB and files that are not JSON", async () => {
    writeFileSync(recordPath(dir, DIGEST), " ".repeat(65 * 1024));
    expect(await readJsonFile(recordPath(dir, DIGEST))).toMatchObject({ kind: "invalid", reason: "too-large" });
    writeFileSync(recordPath(dir, DIGEST), "{nope");
    expect(await readJsonFile(recordPath(dir, DIGEST))).toMatchObject({ kind: "invalid", reason: "not-json" });
  });

  it("reads files of every size up to the bound exactly, one after another (the read buffer is shared)", () => {
    const path = join(sandbox.root, "sized.txt");
    for (const size of [300 * 1024, 10, 65 * 1024, 0, 1024 * 1024]) {
      const text = "é".repeat(size / 2) + "x".repeat(size % 2);
      writeFileSync(path, text);
      expect(readTextFile(path, 1024 * 1024)).toEqual({ kind: "text", text });
    }
    writeFileSync(path, "y".repeat(1024 * 1024 + 1));
    expect(readTextFile(path, 1024 * 1024)).toMatchObject({ kind: "invalid", reason: "too-large" });
  });
});

describe("parseRecord", () => {
  it("reads the smallest record an early writer of schema 1 produced, filling defaults", () => {
    const minimal = {
      schema_version: 1,
      canonical_id: `fleet:v1:codex:${DIGEST}`,
      harness: "codex",
      session_id: "s",
      instance_id: "i",
      cwd: "/w",
      status: "idle",
      updated_at: "2026-11-29T11:00:00Z",
    };
    expect(parseRecord(minimal, NOW)).toEqual({
      kind: "record",
      record: {
        ...minimal,
        identity: "process",
        pid: null,
        process_start: null,
        detail: "",
        tool: "",
        sequence: null,
        arrival_sequence: 0,
        last_event: "",
        created_at: minimal.updated_at,
        status_changed_at: minimal.updated_at,
        terminal: { env: {} },
      },
    });
  });

  it("drops unknown keys from a newer minor writer and refuses a newer schema version", () => {
    expect(parseRecord({ ...sampleRecord(), colour: "blue" }, NOW)).toMatchObject({
      kind: "record",
      record: expect.not.objectContaining({ colour: "blue" }),
    });
    expect(parseRecord({ ...sampleRecord(), schema_version: 2 }, NOW)).toMatchObject({ kind: "invalid", reason: "newer-schema" });
  });

  it("drops a malformed launch and keeps the rest of the record", () => {
    const read = parseRecord({ ...sampleRecord(), launch: { launch_id: "NOT-HEX", profile_id: "work" } }, NOW);
    expect(read).toMatchObject({ kind: "record", record: { launch: { profile_id: "work" }, status: "running" } });
    const dropped = parseRecord({ ...sampleRecord(), launch: "garbage" }, NOW);
    expect(dropped.kind === "record" && "launch" in dropped.record).toBe(false);
  });

  it("refuses timestamps that are not ISO 8601 dates", () => {
    for (const stamp of ["yesterday", "2026-11-29 12:00:00Z", "2026-13-45T99:99:99Z", "2026-11-29T12:00:00"]) {
      expect(parseRecord(sampleRecord({ updated_at: stamp }), NOW)).toMatchObject({ kind: "invalid", reason: "schema" });
    }
    expect(parseRecord(sampleRecord({ updated_at: "2026-11-29T11:00:00+01:00" }), NOW).kind).toBe("record");
  });

  it("refuses timestamps more than five minutes in the future", () => {
    expect(parseRecord(sampleRecord({ updated_at: "2026-11-29T12:04:59.000Z" }), NOW).kind).toBe("record");
    expect(parseRecord(sampleRecord({ updated_at: "2026-11-29T12:05:01.000Z" }), NOW)).toMatchObject({
      kind: "invalid",
      reason: "future-timestamp",
    });
  });

  it("refuses wrong types and oversized fields", () => {
    expect(parseRecord({ ...sampleRecord(), pid: "1" }, NOW)).toMatchObject({ kind: "invalid", reason: "schema" });
    expect(parseRecord({ ...sampleRecord(), detail: "x".repeat(513) }, NOW)).toMatchObject({ kind: "invalid", reason: "schema" });
    expect(parseRecord({ ...sampleRecord(), terminal: { env: { "bad key": "x" } } }, NOW)).toMatchObject({
      kind: "invalid",
      reason: "schema",
    });
  });
});

describe("atomic writes", () => {
  it("writes a private file and leaves no temp files", async () => {
    expect(await writeJsonAtomic(recordPath(dir, DIGEST), sampleRecord())).toEqual({ ok: true });
    expect(statSync(recordPath(dir, DIGEST)).mode & 0o777).toBe(0o600);
    expect((await listRecords(dir, NOW)).records).toHaveLength(1);
    expect(execFileSync("ls", ["-A", dir], { encoding: "utf8" }).trim()).toBe(`${DIGEST}.json`);
  });

  it("keeps the last valid record when a write fails", async () => {
    await writeJsonAtomic(recordPath(dir, DIGEST), sampleRecord({ detail: "old" }));
    // root ignores directory permissions; an oversized record is a failure every user can provoke.
    expect(await writeJsonAtomic(recordPath(dir, DIGEST), { huge: "x".repeat(70 * 1024) })).toMatchObject({
      ok: false,
      reason: "too-large",
    });
    expect(await writeJsonAtomic(join(dir, "missing-dir", "x.json"), sampleRecord())).toMatchObject({ ok: false, reason: "io" });
    expect(await readRecord(recordPath(dir, DIGEST), NOW)).toMatchObject({ kind: "record", record: { detail: "old" } });
  });

  it("replaces a symlink at the record's name instead of writing through it", async () => {
    const outside = join(sandbox.root, "outside.json");
    writeFileSync(outside, "untouched");
    symlinkSync(outside, recordPath(dir, DIGEST));
    await writeJsonAtomic(recordPath(dir, DIGEST), sampleRecord());
    expect(readFileSync(outside, "utf8")).toBe("untouched");
    expect((await readRecord(recordPath(dir, DIGEST), NOW)).kind).toBe("record");
  });

  it("shows a concurrent reader the whole old or the whole new record, never a mix", async () => {
    const versions = [sampleRecord({ detail: "a".repeat(400), tool: "A" }), sampleRecord({ detail: "b".repeat(20), tool: "B" })];
    await writeJsonAtomic(recordPath(dir, DIGEST), versions[0]);
    let writing = true;
    const writer = (async () => {
      for (let index = 0; index < 300; index++) await writeJsonAtomic(recordPath(dir, DIGEST), versions[index % 2]);
      writing = false;
    })();
    const seen = new Set<string>();
    while (writing) {
      const read = await readRecord(recordPath(dir, DIGEST), NOW);
      expect(read.kind).toBe("record");
      if (read.kind === "record") {
        expect(read.record.detail[0]?.toUpperCase()).toBe(read.record.tool);
        seen.add(read.record.tool);
      }
    }
    await writer;
    expect(seen.size).toBeGreaterThan(0);
  });
});

describe("record locks", () => {
  it("serializes holders and times out at the deadline when the lock stays held", async () => {
    const order: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const first = withRecordLock(dir, DIGEST, 1000, async () => {
      order.push("first-in");
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      order.push("first-out");
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const blocked = await withRecordLock(dir, DIGEST, 100, async () => order.push("never"));
    expect(blocked).toMatchObject({ ok: false, reason: "timeout" });
    const second = withRecordLock(dir, DIGEST, 2000, async () => order.push("second"));
    setTimeout(releaseFirst, 50);
    await Promise.all([first, second]);
    expect(order).toEqual(["first-in", "first-out", "second"]);
  });

  it("rejects a symlinked lock entry", async () => {
    mkdirSync(join(sandbox.root, "lockdir"));
    symlinkSync(join(sandbox.root, "lockdir"), `${recordPath(dir, DIGEST)}.lock`);
    expect(await withRecordLock(dir, DIGEST, 100, async () => 1)).toMatchObject({ ok: false, reason: "symlink" });
  });

  /** A holder in its own process: it takes the lock, says so, and on each line "write" writes "theirs" through it. */
  function holderProcess() {
    const script = `
      import { withRecordLock } from ${JSON.stringify(resolve("src/store/record-lock.ts"))};
      import { createInterface } from "node:readline";
      await withRecordLock(${JSON.stringify(dir)}, ${JSON.stringify(DIGEST)}, 1000, async (lock) => {
        process.stdout.write("locked\\n");
        for await (const line of createInterface({ input: process.stdin }))
          if (line === "write") process.stdout.write(JSON.stringify(lock.write(${JSON.stringify(recordPath(dir, DIGEST))}, "theirs")) + "\\n");
      });`;
    const holder = spawn(process.execPath, ["--input-type=module", "-e", script]);
    const lines: string[] = [];
    let waiting: (() => void) | undefined;
    holder.stdout.on("data", (chunk: Buffer) => {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      waiting?.();
    });
    const line = async () => {
      while (lines.length === 0) await new Promise<void>((resolve) => (waiting = resolve));
      return lines.shift() as string;
    };
    return { holder, line };
  }

  it("takes over at once the lock of a holder that was killed", async () => {
    const { holder, line } = holderProcess();
    expect(await line()).toBe("locked");
    process.kill(holder.pid as number, "SIGKILL");
    await new Promise((resolve) => holder.on("exit", resolve));
    expect(await withRecordLock(dir, DIGEST, 200, async () => "mine")).toEqual({ ok: true, value: "mine" });
  });

  it("takes over a stopped holder's lock once stale, and fences off its write when it wakes", async () => {
    const { holder, line } = holderProcess();
    expect(await line()).toBe("locked");
    process.kill(holder.pid as number, "SIGSTOP");
    try {
      // Alive and recent: busy.
      expect(await withRecordLock(dir, DIGEST, 200, async () => 1)).toMatchObject({ ok: false, reason: "timeout" });
      // Age the holder's directory as the passing of STALE_LOCK_MS would: taken over.
      const lockDir = `${recordPath(dir, DIGEST)}.lock`;
      const old = new Date(Date.now() - STALE_LOCK_MS - 1000);
      for (const name of readdirSync(lockDir)) utimesSync(join(lockDir, name), old, old);
      const mine = await withRecordLock(dir, DIGEST, 200, async (lock) => lock.write(recordPath(dir, DIGEST), "mine"));
      expect(mine).toEqual({ ok: true, value: { ok: true } });
    } finally {
      process.kill(holder.pid as number, "SIGCONT");
    }
    holder.stdin.write("write\n");
    expect(JSON.parse(await line())).toMatchObject({ ok: false, reason: "io" });
    expect(readFileSync(recordPath(dir, DIGEST), "utf8")).toBe("mine");
    holder.kill("SIGKILL");
  });
});
