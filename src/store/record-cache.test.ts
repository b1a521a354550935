import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../test/records.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { ensureStateDirs } from "./paths.ts";
import { openRecordCache, RECORD_CACHE_FILE } from "./record-cache.ts";
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

/** One listing through a freshly opened cache, saved afterwards, as loadFleet does. */
function list(now = NOW) {
  const cache = openRecordCache(sandbox.stateDir);
  const listing = listRecords(sessions, now, cache);
  cache.save();
  return { ...listing, details: Object.fromEntries(listing.records.map(({ digest, record }) => [digest, record.detail])) };
}

type CacheFile = { entries: Record<string, { text: string; record: SessionRecord }> };
const readCache = () => JSON.parse(readFileSync(cachePath, "utf8")) as CacheFile;
/** Change what the cache says a record is, leaving its text: a listing that then shows the change used the cache. */
function tamperCachedDetail(digest: string, detail: string): void {
  const cache = readCache();
  const entry = cache.entries[digest];
  if (!entry) throw new Error(`no cache entry for ${digest}`);
  entry.record.detail = detail;
  writeFileSync(cachePath, JSON.stringify(cache));
}

describe("validated record cache", () => {
  it("remembers each valid record with the exact text it was validated from, and lists the same records", () => {
    put(A, { detail: "first" });
    put(B, { detail: "second" });
    const plain = listRecords(sessions, NOW);
    const cached = list();
    expect(cached.records).toEqual(plain.records);
    const entries = readCache().entries;
    expect(Object.keys(entries).sort()).toEqual([A, B]);
    expect(entries[A]?.text).toBe(readFileSync(recordPath(sessions, A), "utf8"));
    // A second listing reads the remembered records back, equal to freshly validated ones.
    expect(list().records).toEqual(plain.records);
  });

  it("uses a remembered record only while the file's text is unchanged", () => {
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
      JSON.stringify({ format: 1, writer: "someone else's", entries: { [A]: { text: "x", record: {} } } }),
      JSON.stringify({ format: 1, writer: "dev+dev", entries: [] }),
      JSON.stringify({ format: 1, writer: "dev+dev", entries: { [A]: { text: 42, record: null } } }),
    ];
    for (const text of damaged) {
      writeFileSync(cachePath, text);
      expect(list().details[A], text).toBe("on disk");
    }
    // A cache written by another build, even with the record's exact text, is not used.
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
        format: 1,
        writer: "dev+dev",
        entries: { [A]: { text: readFileSync(recordPath(sessions, A), "utf8"), record: { detail: "planted" } } },
      }),
    );
    rmSync(cachePath);
    symlinkSync(elsewhere, cachePath);
    expect(list().details[A]).toBe("on disk");
  });
});
