import { describe, expect, it } from "vitest";
import { compareStarts, spawnOf } from "./spawn-order.ts";

describe("spawn order", () => {
  it("reads the start time from Linux and macOS start tokens", () => {
    expect(spawnOf({ pid: 42, startToken: "linux:8f1c:123456" })).toEqual({ start: 123456, pid: 42 });
    expect(spawnOf({ pid: 42, startToken: "darwin:Sat Nov 28 09:14:02 2026" })).toEqual({
      start: Date.parse("Sat Nov 28 09:14:02 2026") / 1000,
      pid: 42,
    });
    expect(spawnOf({ pid: 42, startToken: "t" })).toBeUndefined();
  });

  it("orders by start time, then by PID within one tick, and reads a large PID gap within a tick as a wrap-around", () => {
    const at = (start: number, pid: number) => ({ spawn_start: start, spawn_pid: pid });
    expect(compareStarts(at(101, 5), at(100, 900))).toBe(1);
    expect(compareStarts(at(100, 901), at(100, 900))).toBe(1);
    expect(compareStarts(at(100, 900), at(100, 901))).toBe(-1);
    expect(compareStarts(at(100, 3), at(100, 32_760))).toBe(1);
    expect(compareStarts({ sequence: 7 }, { sequence: 3 })).toBe(1);
  });

  it("counts a record without evidence as older than one with it, and cannot order evidence of different kinds", () => {
    expect(compareStarts(undefined, { sequence: 1 })).toBe(-1);
    expect(compareStarts({ spawn_start: 1, spawn_pid: 1 }, undefined)).toBe(1);
    expect(compareStarts(undefined, undefined)).toBe(0);
    expect(compareStarts({ sequence: 9 }, { spawn_start: 1, spawn_pid: 1 })).toBe(0);
  });
});
