import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { canonicalId } from "../core/identity.ts";
import { ensureStateDirs } from "./paths.ts";
import { enqueue, queuedEvents, removeQueued, spoolDirOf } from "./spool.ts";
import type { LifecycleEvent } from "../core/schema.ts";

const DIGEST = "c".repeat(64);
const EVENT: LifecycleEvent = {
  harness: "pi",
  alias: "fleet-event",
  eventId: "pi.session-start",
  canonicalId: canonicalId("pi", "s", "i"),
  sessionId: "s",
  instanceId: "i",
  identity: "emitter",
  pid: 4242,
  processStart: "linux:boot:1",
  cwd: "/w",
  status: "started",
  detail: "session started",
  tool: "",
  sequence: 1,
  startsSession: true,
  mayCreate: true,
  sharedProcess: false,
  terminal: { env: {} },
};

let sandbox: Sandbox;
let sessions: string;
beforeEach(() => {
  sandbox = makeSandbox();
  sessions = ensureStateDirs(sandbox.stateDir).sessionsDir;
});
afterEach(() => sandbox.cleanup());

describe("spool", () => {
  it("queues, lists in arrival order and removes entries of a private spool dir", () => {
    const first = enqueue(sessions, DIGEST, EVENT);
    const second = enqueue(sessions, DIGEST, { ...EVENT, sequence: 2 });
    const entries = queuedEvents(sessions, DIGEST);
    expect(entries.map((entry) => entry.path)).toEqual([first, second].map((queued) => (queued.ok ? queued.path : "")));
    expect(entries.map((entry) => entry.event?.sequence)).toEqual([1, 2]);
    removeQueued(entries);
    expect(readdirSync(spoolDirOf(sessions, DIGEST))).toEqual([]);
  });

  it("never follows a symlink planted as the spool dir: nothing in its target is read or deleted", () => {
    const target = join(sandbox.root, "victim");
    mkdirSync(target);
    // Names shaped like queue entries, one of them a valid queued event.
    const names = ["00000000000000000001-1-00000000.json", "00000000000000000002-1-00000001.json"];
    writeFileSync(join(target, names[0] as string), JSON.stringify({ schema_version: 1, event: EVENT }));
    writeFileSync(join(target, names[1] as string), "not an event");
    symlinkSync(target, spoolDirOf(sessions, DIGEST));
    const entries = queuedEvents(sessions, DIGEST);
    expect(entries).toEqual([]);
    expect(enqueue(sessions, DIGEST, EVENT)).toMatchObject({ ok: false, detail: expect.stringContaining("symlink") });
    // Entries read while the spool was a real dir, then the dir swapped for a symlink: removal re-checks and skips.
    removeQueued(names.map((name) => ({ path: join(spoolDirOf(sessions, DIGEST), name), event: undefined })));
    expect(readdirSync(target).sort()).toEqual(names);
  });
});
