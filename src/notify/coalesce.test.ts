import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { joinBurst, type BurstTiming } from "./coalesce.ts";

const FAST: BurstTiming = { quietMs: 150, maxMs: 1500, waitBoundMs: 5000, pollMs: 20 };
const id = (n: number) => `fleet:v1:claude:${n.toString(16).padStart(64, "0")}`;

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.cleanup());

describe("joinBurst", () => {
  it("sessions that arrive together: one leader takes them all, the others find theirs taken", async () => {
    sandbox = makeSandbox();
    const stateDir = sandbox.stateDir;
    const joined = await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) => {
        await new Promise((resolve) => setTimeout(resolve, n * 30));
        return joinBurst(stateDir, id(n), (ids) => [...ids].sort(), FAST);
      }),
    );
    const leaders = joined.filter((result) => result.kind === "leader");
    expect(leaders).toEqual([{ kind: "leader", value: [1, 2, 3, 4, 5].map(id) }]);
    expect(joined.filter((result) => result.kind === "taken")).toHaveLength(4);
    expect(readdirSync(join(stateDir, "notify", "pending"))).toEqual([]);
    expect(existsSync(join(stateDir, "notify", "leader.lock"))).toBe(false);
  });

  it("a session that arrives after the batch was taken is the next leader's", async () => {
    sandbox = makeSandbox();
    const first = await joinBurst(sandbox.stateDir, id(1), (ids) => ids, FAST);
    const second = await joinBurst(sandbox.stateDir, id(2), (ids) => ids, FAST);
    expect([first, second]).toEqual([
      { kind: "leader", value: [id(1)] },
      { kind: "leader", value: [id(2)] },
    ]);
  });

  it("refuses what is not a canonical id, and a state dir it must not use", async () => {
    sandbox = makeSandbox();
    expect(await joinBurst(sandbox.stateDir, "../../etc/passwd", (ids) => ids, FAST)).toMatchObject({
      kind: "gave-up",
      detail: expect.stringContaining("not a canonical id"),
    });
    const file = join(sandbox.root, "a-file");
    writeFileSync(file, "");
    expect(await joinBurst(file, id(1), (ids) => ids, FAST)).toMatchObject({ kind: "gave-up", detail: expect.stringContaining(file) });
  });
});
