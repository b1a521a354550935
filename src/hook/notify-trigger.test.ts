import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { makeSandbox } from "../../test/sandbox.ts";
import { sampleRecord } from "../../test/records.ts";
import { ensurePrivateDir, ensureStateDirs } from "../store/paths.ts";
import type { LifecycleEvent } from "../core/schema.ts";
import { writeRecord } from "../store/records.ts";
import { changeMark, markHandled, notifyDirOf } from "../store/notify-ledger.ts";
import { notifyOnChange } from "./notify-trigger.ts";

const ID = `fleet:v1:claude:${"b".repeat(64)}`;
const applied = (...statuses: string[]) => statuses.map((status) => ({ event: { canonicalId: ID, status } as LifecycleEvent }));

function setup(status: string, env: NodeJS.ProcessEnv = {}) {
  const sandbox = makeSandbox();
  const { sessionsDir } = ensureStateDirs(sandbox.stateDir);
  writeRecord(sessionsDir, "b".repeat(64), sampleRecord({ status: status as "waiting", status_changed_at: "2026-11-29T11:00:00.000Z" }));
  const start = vi.fn();
  const trigger = (events: ReturnType<typeof applied>, bundle: () => string | undefined = () => "/pkg/dist/notify.cjs") =>
    notifyOnChange(events, sessionsDir, { stateDir: sandbox.stateDir, env }, { bundle, start });
  return { sandbox, start, trigger };
}

describe("the hook's trigger", () => {
  it("starts the notifier, detached, when the record entered waiting, error or idle", () => {
    for (const status of ["waiting", "error", "idle"]) {
      const { sandbox, start, trigger } = setup(status, { TONGS_AGENTS_NOTIFY: "on" });
      expect(trigger(applied("running", status))).toBe(true);
      expect(start).toHaveBeenCalledWith("/pkg/dist/notify.cjs", ["deliver", sandbox.stateDir, ID], { TONGS_AGENTS_NOTIFY: "on" });
      sandbox.cleanup();
    }
  });

  it("does nothing for other states, when turned off, without a bundle, or when another hook already moved on", () => {
    const running = setup("running");
    expect(running.trigger(applied("running"))).toBe(false);
    const off = setup("waiting", { TONGS_AGENTS_NOTIFY: "off" });
    expect(off.trigger(applied("waiting"))).toBe(false);
    const noBundle = setup("waiting");
    expect(noBundle.trigger(applied("waiting"), () => undefined)).toBe(false);
    // The event said waiting, but the record (re-read) is running again: nothing to tell.
    const movedOn = setup("running");
    expect(movedOn.trigger(applied("waiting"))).toBe(false);
    expect(notifyOnChange([], "/nonexistent", { stateDir: "/nonexistent", env: {} })).toBe(false);
    for (const { start, sandbox } of [running, off, noBundle, movedOn]) {
      expect(start).not.toHaveBeenCalled();
      sandbox.cleanup();
    }
  });

  it("once per change of state: a change already handled starts nothing", () => {
    const { sandbox, start, trigger } = setup("waiting");
    ensurePrivateDir(notifyDirOf(sandbox.stateDir));
    ensurePrivateDir(join(notifyDirOf(sandbox.stateDir), "sent"));
    markHandled(sandbox.stateDir, "b".repeat(64), changeMark("waiting", "2026-11-29T11:00:00.000Z"));
    expect(trigger(applied("waiting"))).toBe(false);
    markHandled(sandbox.stateDir, "b".repeat(64), changeMark("waiting", "2026-11-29T10:00:00.000Z"));
    expect(trigger(applied("waiting"))).toBe(true);
    expect(start).toHaveBeenCalledTimes(1);
    sandbox.cleanup();
  });

  it("never throws into the hook", () => {
    const { sandbox, trigger } = setup("waiting");
    const throwing = notifyOnChange(
      applied("waiting"),
      join(sandbox.stateDir, "sessions"),
      { stateDir: sandbox.stateDir, env: {} },
      {
        bundle: () => "/x",
        start: () => {
          throw new Error("EAGAIN");
        },
      },
    );
    expect(throwing).toBe(false);
    expect(trigger(applied("waiting"))).toBe(true);
    sandbox.cleanup();
  });
});
