import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeLiveRecord } from "../../test/records.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { linuxProcessSource } from "../core/proc.ts";
import type { FleetContext } from "./queries.ts";
import { waitForSession } from "./wait.ts";

let sandbox: Sandbox;
let context: FleetContext;
beforeEach(() => {
  sandbox = makeSandbox();
  context = { stateDir: sandbox.stateDir, processes: linuxProcessSource(), listProcesses: async () => [] };
});
afterEach(() => sandbox.cleanup());

describe("waitForSession", () => {
  it("returns at once when the session is already in the state", async () => {
    await writeLiveRecord(sandbox.stateDir, "s-wait", { env: {} }, "/w/app", { status: "waiting" });
    const result = await waitForSession(context, "app", "waiting", 5_000);
    expect(result).toMatchObject({ ok: true, outcome: "reached", session: { status: "waiting" } });
  });

  it("wakes when the record changes, and attention means waiting, error or idle", async () => {
    await writeLiveRecord(sandbox.stateDir, "s-wait", { env: {} }, "/w/app", { status: "running" });
    const waiting = waitForSession(context, "s-wait", "attention", 10_000);
    setTimeout(() => void writeLiveRecord(sandbox.stateDir, "s-wait", { env: {} }, "/w/app", { status: "idle", detail: "done" }), 100);
    expect(await waiting).toMatchObject({ ok: true, session: { status: "idle", detail: "done" } });
  });

  it("times out, and says when the session ended first", async () => {
    await writeLiveRecord(sandbox.stateDir, "s-wait", { env: {} }, "/w/app", { status: "running" });
    expect(await waitForSession(context, "s-wait", "waiting", 50)).toMatchObject({
      ok: false,
      reason: "timeout",
      session: { status: "running" },
    });
    const ending = waitForSession(context, "s-wait", "waiting", 10_000);
    setTimeout(() => void writeLiveRecord(sandbox.stateDir, "s-wait", { env: {} }, "/w/app", { status: "ended" }), 100);
    expect(await ending).toMatchObject({ ok: false, reason: "ended" });
    expect(await waitForSession(context, "s-wait", "ended", 50)).toMatchObject({ ok: true });
  });

  it("reports a query that matches nothing like every other query", async () => {
    expect(await waitForSession(context, "nothing-here", "idle", 50)).toMatchObject({
      ok: false,
      reason: "not-found",
      detail: 'no session matches "nothing-here"',
    });
  });
});
