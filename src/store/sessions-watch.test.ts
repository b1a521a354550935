import { chmodSync, linkSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, watch as watchDir, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../test/records.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import type { SessionRecord } from "../core/schema.ts";
import { ensureStateDirs } from "./paths.ts";
import { openRecordCache } from "./record-cache.ts";
import { listRecords, recordPath, writeJsonAtomic } from "./records.ts";
import { watchSessions, type SessionsWatch } from "./sessions-watch.ts";

// Real files and the kernel's inotify (the temp dir is on ext4 or tmpfs here): the watch is only as good as what the
// kernel reports, which a fake cannot show.
const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const A = "a".repeat(64);
const B = "b".repeat(64);

let sandbox: Sandbox;
let sessions: string;
let watch: SessionsWatch;
beforeEach(() => {
  sandbox = makeSandbox();
  sessions = ensureStateDirs(sandbox.stateDir).sessionsDir;
  // From the first verified record on: these tests are about what the watch may vouch for.
  watch = watchSessions(sessions, { settleFrom: 1 });
});
afterEach(() => {
  watch.close();
  sandbox.cleanup();
});

const put = (digest: string, detail: string) =>
  writeJsonAtomic(recordPath(sessions, digest), sampleRecord({ canonical_id: `fleet:v1:claude:${digest}`, detail }));

/** A listing as loadFleet makes it in the server: the watch's word, then the records, counting those taken on it. */
async function list(): Promise<{ details: Record<string, string>; trusted: number }> {
  const vouched = await watch.forListing();
  let trusted = 0;
  const counting = vouched && {
    trusted: (digest: string) => {
      const record = vouched.trusted(digest);
      if (record) trusted++;
      return record;
    },
    verified: vouched.verified,
  };
  const cache = openRecordCache(sandbox.stateDir, counting ? { watch: counting } : {});
  const listing = listRecords(sessions, NOW, cache);
  cache.save(listing);
  return { details: Object.fromEntries(listing.records.map(({ digest, record }) => [digest, record.detail])), trusted };
}

describe("a watch on the sessions dir", () => {
  it("vouches for records unchanged since a listing read them, and for nothing else", async () => {
    put(A, "first");
    put(B, "first");
    expect(await list()).toEqual({ details: { [A]: "first", [B]: "first" }, trusted: 0 });
    expect(await list()).toEqual({ details: { [A]: "first", [B]: "first" }, trusted: 2 });
    put(A, "second");
    expect(await list()).toEqual({ details: { [A]: "second", [B]: "first" }, trusted: 1 });
  });

  const changes: [string, (path: string) => void][] = [
    ["written in place", (path) => writeFileSync(path, readFileSync(path, "utf8").replace('"first"', '"other"'))],
    [
      "replaced by a rename",
      (path) => (writeFileSync(`${path}.new`, readFileSync(path, "utf8").replace('"first"', '"other"')), renameSync(`${path}.new`, path)),
    ],
    ["its mode changed", (path) => chmodSync(path, 0o644)],
    ["removed", (path) => unlinkSync(path)],
  ];
  it.each(changes)("a record %s is read again at the next listing", async (_name, change) => {
    put(A, "first");
    await list();
    expect((await list()).trusted).toBe(1);
    change(recordPath(sessions, A));
    const after = await list();
    expect(after.trusted).toBe(0);
    expect(after.details[A]).toBe(
      readdirSync(sessions).includes(`${A}.json`)
        ? (JSON.parse(readFileSync(recordPath(sessions, A), "utf8")) as SessionRecord).detail
        : undefined,
    );
  });

  it("never vouches for a file with another link, through which it could change unseen", async () => {
    put(A, "first");
    linkSync(recordPath(sessions, A), join(sandbox.root, "elsewhere.json"));
    await list();
    expect((await list()).trusted).toBe(0);
    writeFileSync(join(sandbox.root, "elsewhere.json"), readFileSync(recordPath(sessions, A), "utf8").replace('"first"', '"other"'));
    expect((await list()).details[A]).toBe("other");
  });

  it("starts over when the sessions dir is replaced", async () => {
    put(A, "first");
    await list();
    expect((await list()).trusted).toBe(1);
    renameSync(sessions, `${sessions}.old`);
    ensureStateDirs(sandbox.stateDir);
    put(A, "new dir");
    expect(await list()).toEqual({ details: { [A]: "new dir" }, trusted: 0 });
    rmSync(`${sessions}.old`, { recursive: true });
  });

  it("believes a verification for a while only: a write through a link made after it shows by then", async () => {
    watch.close();
    watch = watchSessions(sessions, { trustMs: 300, settleFrom: 1 });
    put(A, "first");
    await list();
    expect((await list()).trusted).toBe(1);
    // No event reaches the dir's watch for the link, nor for a write through the other name.
    linkSync(recordPath(sessions, A), join(sandbox.root, "elsewhere.json"));
    writeFileSync(join(sandbox.root, "elsewhere.json"), readFileSync(recordPath(sessions, A), "utf8").replace('"first"', '"other"'));
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await list()).toEqual({ details: { [A]: "other" }, trusted: 0 });
    expect((await list()).trusted).toBe(0); // two links now: never vouched for
  });

  it("a sessions dir removed and made again (the same inode, as ext4 often gives) is watched again", async () => {
    watch.close();
    watch = watchSessions(sessions, { settleMs: 100, settleFrom: 1 });
    put(A, "first");
    await list();
    rmSync(sessions, { recursive: true });
    ensureStateDirs(sandbox.stateDir);
    put(A, "again");
    expect((await list()).details).toEqual({ [A]: "again" });
    await list();
    const started = performance.now();
    expect(await list()).toEqual({ details: { [A]: "again" }, trusted: 1 });
    expect(performance.now() - started).toBeLessThan(100); // its marker's event came: the watch works again
  });

  it("makes no marker and waits for none while fewer records are verified than make it worth it", async () => {
    watch.close();
    watch = watchSessions(sessions, { settleFrom: 2 });
    const names: string[] = [];
    const observer = watchDir(sessions, (_event, name) => void (name !== null && names.push(name)));
    try {
      put(A, "first");
      put(B, "first");
      await list(); // nothing verified yet: A and B are read and marked
      put(A, "second"); // A's mark is forgotten once its event comes
      await new Promise((resolve) => setTimeout(resolve, 50));
      // One verified record (B): checked by its lstat, and A read again; both marked.
      expect(await list()).toEqual({ details: { [A]: "second", [B]: "first" }, trusted: 0 });
      expect(await list()).toEqual({ details: { [A]: "second", [B]: "first" }, trusted: 2 }); // this one settles, on its marker
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(new Set(names.filter((name) => name.startsWith(".settle-"))).size).toBe(1);
    } finally {
      observer.close();
    }
  });

  it("keeps a watch that kept up when the listing ran past the bound (a descheduled process): its marker's event counts", async () => {
    watch.close();
    watch = watchSessions(sessions, { settleMs: 5, settleFrom: 1 });
    put(A, "first");
    await list();
    // From the check phase: the loop's next turn runs its due timers before it looks at any I/O.
    await new Promise((resolve) => setImmediate(resolve));
    const listing = list(); // the marker is made before the first wait...
    const until = performance.now() + 30;
    while (performance.now() < until); // ...and the process runs nothing else until past the bound
    expect(await listing).toEqual({ details: { [A]: "first" }, trusted: 1 });
  });

  it("settles false with no sessions dir, and leaves no marker behind", async () => {
    await list();
    expect(readdirSync(sessions)).toEqual([]);
    rmSync(sessions, { recursive: true });
    expect(await watch.settle()).toBe(false);
  });

  it("under a stream of changes, every listing shows each record as last written before it", async () => {
    const digests = Array.from({ length: 6 }, (_, index) => String(index).repeat(64));
    const written = new Map<string, string>();
    for (const digest of digests) {
      put(digest, "0");
      written.set(digest, "0");
    }
    for (let step = 1; step <= 150; step++) {
      const digest = digests[step % digests.length] as string;
      const detail = String(step);
      const path = recordPath(sessions, digest);
      // Atomic replacement as the hook writes, or in place as nothing of ours does but a person might.
      if (step % 3 === 0)
        writeFileSync(path, readFileSync(path, "utf8").replace(`"detail": "${written.get(digest)}"`, `"detail": "${detail}"`));
      else put(digest, detail);
      written.set(digest, detail);
      expect((await list()).details).toEqual(Object.fromEntries(written));
    }
  });
});
