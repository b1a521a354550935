// The opt-in quota warning: exactly one notification per crossing (one window of one harness reaching the threshold
// within one period), whoever sees it and however often; none without a threshold, none for a period already over.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import type { QuotaWindow } from "../core/usage-facts.ts";
import { notifyCrossings, pruneCrossings, quotaThreshold } from "./quota-crossing.ts";

let sandbox: Sandbox;
let started: string[][];
beforeEach(() => {
  sandbox = makeSandbox();
  started = [];
});
afterEach(() => sandbox.cleanup());

const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
const window = (used: number, resets = inAnHour, name = "five_hour"): QuotaWindow => ({
  name,
  used_percent: used,
  resets_at: resets,
  at: new Date().toISOString(),
});

function configure(notifications: Record<string, unknown>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...sandbox.env, TONGS_AGENTS_NOTIFY: "on" };
  const dir = join(env.XDG_CONFIG_HOME as string, "tongs-agents");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ notifications }));
  return env;
}

const offer = (env: NodeJS.ProcessEnv, windows: QuotaWindow[], harness = "codex") =>
  notifyCrossings({ harness, canonicalId: () => `fleet:v1:${harness}:${"c".repeat(64)}` }, windows, [], {
    stateDir: sandbox.stateDir,
    env,
    bundle: () => "/notify.cjs",
    start: (_bundle, args) => started.push([...args]),
  });

describe("quota crossings", () => {
  it("is off unless the user set a threshold", () => {
    expect(quotaThreshold(sandbox.env)).toBeUndefined();
    expect(offer({ ...sandbox.env, TONGS_AGENTS_NOTIFY: "on" }, [window(99)])).toEqual([]);
    expect(quotaThreshold(configure({ quota_percent: 90 }))).toBe(90);
    expect(quotaThreshold(configure({ quota_percent: 0 }))).toBeUndefined();
  });

  it("notifies exactly once per window and reset, however many readers see it and however often", () => {
    const env = configure({ quota_percent: 90 });
    expect(offer(env, [window(85)])).toEqual([]);
    expect(offer(env, [window(91), window(40, inAnHour, "secondary")])).toEqual(["five_hour"]);
    // The same window seen again, higher, by other readers: no second notification.
    expect(offer(env, [window(95)])).toEqual([]);
    expect(offer(env, [window(100)])).toEqual([]);
    expect(started).toEqual([["quota", sandbox.stateDir, `fleet:v1:codex:${"c".repeat(64)}`, "five_hour", "91", inAnHour]]);
    // The next period of the window (a new reset) is a new crossing; another harness's window is its own.
    const later = new Date(Date.now() + 5 * 3_600_000).toISOString();
    expect(offer(env, [window(92, later)])).toEqual(["five_hour"]);
    expect(offer(env, [window(92)], "claude")).toEqual(["five_hour"]);
    expect(started).toHaveLength(3);
  });

  it("twenty readers offering the same crossing: one claim wins (an O_EXCL create)", () => {
    const env = configure({ quota_percent: 90 });
    const results = Array.from({ length: 20 }, () => offer(env, [window(97)]));
    expect(results.filter((names) => names.length > 0)).toHaveLength(1);
    expect(started).toHaveLength(1);
  });

  it("a window whose reset has passed, or that states none, is never a crossing; prune removes marks past their reset", () => {
    const env = configure({ quota_percent: 90 });
    expect(offer(env, [window(99, new Date(Date.now() - 1000).toISOString())])).toEqual([]);
    const { resets_at: _, ...noReset } = window(99);
    expect(offer(env, [noReset])).toEqual([]);
    offer(env, [window(99)]);
    expect(pruneCrossings(sandbox.stateDir, Date.now())).toEqual([]);
    expect(pruneCrossings(sandbox.stateDir, Date.now() + 2 * 3_600_000)).toHaveLength(1);
  });
});
