// A notifier's world for unit tests: a recording runner that answers every call with success, and a recording tty
// writer; anything else is overridden per test.
import { vi } from "vitest";
import type { RunResult, Runner } from "../src/core/exec.ts";
import type { NotifyWorld } from "../src/notify/contract.ts";

const ok = (stdout = ""): RunResult => ({ ok: true, code: 0, stdout, stderr: "" });

export function testWorld(overrides: Partial<NotifyWorld> = {}) {
  const writes: { path: string; data: string }[] = [];
  const calls: string[][] = [];
  const run: Runner = vi.fn(async (file: string, args: readonly string[]) => {
    calls.push([file, ...args]);
    return ok();
  });
  const world: NotifyWorld = {
    env: {},
    platform: "linux",
    run,
    stateDir: "/nonexistent",
    writeTty: (path, data) => {
      writes.push({ path, data });
      return { ok: true };
    },
    environOf: async () => undefined,
    clickCommand: undefined,
    ...overrides,
  };
  return { world, writes, calls };
}
