import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../test/records.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { ensureStateDirs } from "./paths.ts";
import { fileIdentity, openRecordCache, RACY_MS, readSessionsIndex, RECORD_CACHE_FILE } from "./record-cache.ts";
import { linuxStartToken } from "../core/proc.ts";
import type { SessionRecord } from "../core/schema.ts";
import { listRecords, recordPath, writeJsonAtomic } from "./records.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const A = "a".repeat(64);
const B = "b".repeat(64);

let sandbox: Sandbox;
let sessions: string;
let cachePath: string;
beforeEach(() => {
  sandbox = makeSandbox();
  sessions = ensureStateDirs(sandbox.stateDir).sessionsDir;
  cachePath = join(sandbox.stateDir, RECORD_CACHE_FILE);
});
afterEach(() => sandbox.cleanup());

function put(digest: string, overrides: Partial<SessionRecord> = {}): void {
  writeJsonAtomic(recordPath(sessions, digest), sampleRecord({ canonical_id: `fleet:v1:claude:${digest}`, ...overrides }));
}

/** As if the cache were opened long after every file here was written: no file is within its racy window. */
const later = () => Date.now() + RACY_MS + 60_000;

/** One listing through a freshly opened cache, saved afterwards, as loadFleet does. */
function list(now = NOW, clock: () => number = later, wholeDir = false) {
  const cache = openRecordCache(sandbox.stateDir, { now: clock, sessionsDir: sessions, wholeDir });
  const listing = listRecords(sessions, now, cache);
  cache.save(listing);
  return { ...listing, details: Object.fromEntries(listing.records.map(({ digest, record }) => [digest, record.detail])) };
}

type CacheFile = { entries: Record<string, { file: string; record: SessionRecord }> };
const readCache = () => JSON.parse(readFileSync(cachePath, "utf8")) as CacheFile;
/** The cache's entries; none when nothing was ever remembered (no cache file written). */
const cachedEntries = () => (existsSync(cachePath) ? readCache().entries : {});
/** Change what the cache says a record is, leaving its text: a listing that then shows the change used the cache. */
const identityOf = (digest: string) => fileIdentity(lstatSync(recordPath(sessions, digest), { bigint: true }));

/** Rewrite a record file in place (same inode) with text of the same length: only its times can tell. */
function rewriteInPlace(digest: string, from: string, to: string): void {
  const path = recordPath(sessions, digest);
  const text = readFileSync(path, "utf8");
  expect(to).toHaveLength(from.length);
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
}

/** Wait until the filesystem stamps a later change time than the record's (the kernel's clock tick is coarse). */
function waitForNextTick(digest: string): void {
  const probe = join(sandbox.root, "tick-probe");
  const before = lstatSync(recordPath(sessions, digest), { bigint: true }).ctimeNs;
  const deadline = Date.now() + 5000;
  for (;;) {
    writeFileSync(probe, "x");
    if (lstatSync(probe, { bigint: true }).ctimeNs > before) return;
    if (Date.now() > deadline) throw new Error("the filesystem's change time did not advance");
  }
}

function tamperCachedDetail(digest: string, detail: string): void {
  const cache = readCache();
  const entry = cache.entries[digest];
  if (!entry) throw new Error(`no cache entry for ${digest}`);
  entry.record.detail = detail;
  writeFileSync(cachePath, JSON.stringify(cache));
}

describe("validated record cache", () => {
  it("remembers each valid record with the identity of the file it was read from, and lists the same records", () => {
    put(A, { detail: "first" });
    put(B, { detail: "second" });
    const plain = listRecords(sessions, NOW);
    const cached = list();
    expect(cached.records).toEqual(plain.records);
    const entries = readCache().entries;
    expect(Object.keys(entries).sort()).toEqual([A, B]);
    expect(entries[A]?.file).toBe(fileIdentity(lstatSync(recordPath(sessions, A), { bigint: true })));
    // A second listing reads the remembered records back, equal to freshly validated ones.
    expect(list().records).toEqual(plain.records);
  });

  it("uses a remembered record only while the file is the same file", () => {
    put(A, { detail: "first" });
    list();
    tamperCachedDetail(A, "from the cache");
    expect(list().details[A]).toBe("from the cache");
    put(A, { detail: "changed on disk" });
    expect(list().details[A]).toBe("changed on disk");
    expect(readCache().entries[A]?.record.detail).toBe("changed on disk");
  });

  it("validates a changed file again: an invalid one is reported, never served from the cache", () => {
    put(A);
    list();
    writeFileSync(recordPath(sessions, A), JSON.stringify({ ...sampleRecord({ canonical_id: `fleet:v1:claude:${A}` }), pid: -4 }));
    const { records, invalid } = list();
    expect(records).toEqual([]);
    expect(invalid).toMatchObject([{ digest: A, reason: "schema" }]);
    expect(readCache().entries).toEqual({});
  });

  it("still checks a remembered record's timestamps against the listing's clock", () => {
    put(A, { updated_at: "2026-11-29T12:09:00.000Z" });
    expect(list(NOW + 10 * 60_000).records).toHaveLength(1);
    expect(list(NOW).invalid).toMatchObject([{ digest: A, reason: "future-timestamp" }]);
  });

  it("forgets records that are gone", () => {
    put(A);
    put(B);
    list();
    rmSync(recordPath(sessions, B));
    expect(list().records.map(({ digest }) => digest)).toEqual([A]);
    expect(Object.keys(readCache().entries)).toEqual([A]);
  });

  it("ignores a damaged, foreign-version or symlinked cache and lists correctly", () => {
    put(A, { detail: "on disk" });
    const damaged = [
      "{ not json",
      JSON.stringify({ format: 2, writer: "someone else's", entries: { [A]: { file: identityOf(A), record: {} } } }),
      JSON.stringify({ format: 2, writer: "dev+dev", entries: [] }),
      JSON.stringify({ format: 2, writer: "dev+dev", entries: { [A]: { file: 42, record: null } } }),
      // The format before this one keyed entries by the record's text.
      JSON.stringify({
        format: 1,
        writer: "dev+dev",
        entries: { [A]: { text: readFileSync(recordPath(sessions, A), "utf8"), record: {} } },
      }),
    ];
    for (const text of damaged) {
      writeFileSync(cachePath, text);
      expect(list().details[A], text).toBe("on disk");
    }
    // A cache written by another build, even for the very same file, is not used.
    list();
    tamperCachedDetail(A, "from the cache");
    expect(list().details[A]).toBe("from the cache");
    writeFileSync(cachePath, readFileSync(cachePath, "utf8").replace('"writer":"dev+dev"', '"writer":"0.1.0+0123abcd"'));
    expect(list().details[A]).toBe("on disk");
    // A symlink at the cache's name is not followed.
    const elsewhere = join(sandbox.root, "elsewhere.json");
    writeFileSync(
      elsewhere,
      JSON.stringify({
        format: 2,
        writer: "dev+dev",
        entries: { [A]: { file: identityOf(A), record: { detail: "planted" } } },
      }),
    );
    rmSync(cachePath);
    symlinkSync(elsewhere, cachePath);
    expect(list().details[A]).toBe("on disk");
  });

  it("reads a same-size rewrite in place again, even with its old modification time restored", () => {
    put(A, { detail: "first" });
    // Whole seconds, as a filesystem with one-second times keeps them (and so that they can be set back exactly).
    const second = Math.floor(Date.now() / 1000);
    utimesSync(recordPath(sessions, A), second, second);
    list();
    tamperCachedDetail(A, "from the cache");
    expect(list().details[A]).toBe("from the cache");
    const before = lstatSync(recordPath(sessions, A), { bigint: true });
    waitForNextTick(A);
    // What a tool that keeps timestamps, or a same-second rewrite on such a filesystem, leaves: same inode, same size,
    // same modification time. Only the change time differs, and no program can set it.
    rewriteInPlace(A, '"detail": "first"', '"detail": "again"');
    utimesSync(recordPath(sessions, A), second, second);
    const after = lstatSync(recordPath(sessions, A), { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    expect(list().details[A]).toBe("again");
  });

  it("does not remember a file changed within the racy window, so a rewrite in the same clock tick is read", () => {
    put(A, { detail: "first" });
    // Listed right after the write, with the real clock: validated and listed, not remembered.
    expect(list(NOW, Date.now).details[A]).toBe("first");
    expect(cachedEntries()[A]).toBeUndefined();
    // A same-size rewrite at once, most often in the same tick of the kernel's clock: the identity may be unchanged,
    // and the listing still shows the new text because nothing was remembered.
    rewriteInPlace(A, '"detail": "first"', '"detail": "again"');
    expect(list(NOW, Date.now).details[A]).toBe("again");
    expect(cachedEntries()[A]).toBeUndefined();
    // Once the change time is older than the window, the record is remembered (and then served from the cache).
    const changed = Number(lstatSync(recordPath(sessions, A), { bigint: true }).ctimeNs / 1_000_000n);
    expect(list(NOW, () => changed + RACY_MS + 1).details[A]).toBe("again");
    expect(readCache().entries[A]?.record.detail).toBe("again");
    expect(list(NOW, () => changed + RACY_MS - 1).details[A]).toBe("again");
  });

  it("drops a remembered record whose file changed within the racy window", () => {
    put(A, { detail: "first" });
    list();
    expect(readCache().entries[A]).toBeDefined();
    waitForNextTick(A);
    rewriteInPlace(A, '"detail": "first"', '"detail": "again"');
    expect(list(NOW, Date.now).details[A]).toBe("again");
    expect(cachedEntries()[A]).toBeUndefined();
  });

  describe("standing for the whole directory (while a drainer runs)", () => {
    it("reads and stats no record while the directory keeps its identity, and every file again once it changes", () => {
      put(A, { detail: "first" });
      put(B, { detail: "first" });
      expect(list(NOW, later, true).details).toEqual({ [A]: "first", [B]: "first" });
      // A rewrite in place (no writer of ours does that) changes no directory entry: the whole directory is trusted.
      rewriteInPlace(A, '"first"', '"other"');
      expect(list(NOW, later, true).details).toEqual({ [A]: "first", [B]: "first" });
      // Without a drainer every file is checked, as before.
      expect(list(NOW, later, false).details).toEqual({ [A]: "other", [B]: "first" });
      put(B, { detail: "second" });
      expect(list(NOW, later, true).details).toEqual({ [A]: "other", [B]: "second" });
    });

    it("keeps an index of the records that may be live only, which stands for the directory while it is unchanged", () => {
      const stamp = new Date().toISOString();
      const times = { created_at: stamp, updated_at: stamp, status_changed_at: stamp };
      const me = linuxStartToken(process.pid) as string;
      const [live, ended, gone, reused, quiet, placeholder, untokened] = ["1", "2", "3", "4", "5", "6", "7"].map((c) => c.repeat(64));
      put(live as string, { pid: process.pid, process_start: me, status: "running", ...times });
      put(ended as string, { pid: process.pid, process_start: me, status: "ended", ...times });
      put(gone as string, { pid: 4_000_001, process_start: "linux:boot:1", ...times });
      put(reused as string, { pid: process.pid, process_start: `${me}0`, ...times });
      // A placeholder (no process) quiet for longer than 12 hours, and one updated just now.
      put(quiet as string, { pid: null, process_start: null });
      put(placeholder as string, { pid: null, process_start: null, ...times });
      // A PID without a start token: no later look can rule it out.
      put(untokened as string, { pid: 4_000_002, process_start: null, ...times });
      expect(list(Date.now(), later, true).records).toHaveLength(7);
      const index = readSessionsIndex(sandbox.stateDir, sessions);
      expect(index?.rows.map((row) => row.digest).sort()).toEqual([live, placeholder, untokened]);
      // Any record written: the index no longer stands for the directory.
      put(gone as string, { pid: process.pid, process_start: me, ...times });
      expect(readSessionsIndex(sandbox.stateDir, sessions)).toBeUndefined();
    });

    it("is not saved for a directory changed within the racy window", () => {
      put(A, { detail: "first" });
      list(NOW, () => Date.now(), true);
      expect(existsSync(cachePath) ? readCache() : {}).not.toHaveProperty("dir");
      put(A, { detail: "second" });
      expect(list(NOW, () => Date.now(), true).details).toEqual({ [A]: "second" });
    });
  });
});
