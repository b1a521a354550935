import { describe, expect, it } from "vitest";
import type { ProcessSource } from "../core/proc.ts";
import { capturedProcessSource, entryOrder, firedAt, parseShimEntry } from "./shim-entry.ts";

// /proc/PID/stat lines as the shim captures them: pid (comm) state ppid ... starttime (field 22).
const stat = (pid: number, comm: string, ppid: number, start: number, ttyNr = 0) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} ${ttyNr} -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 ${start} 1000 100`;
const entry = (lines: string[], ppid = 20) => Buffer.from(`tongs-agents-spool 1\n${ppid}\n${lines.length}\n${lines.join("\n")}\n`);

describe("parseShimEntry", () => {
  it("reads the shim's parent, its own PID and the captured stat lines", () => {
    const read = parseShimEntry(entry([stat(30, "sh", 20, 900), stat(20, "claude", 1, 500, 34816)]));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.entry.ppid).toBe(20);
    expect(read.entry.pid).toBe(30);
    expect([...read.entry.stats.keys()]).toEqual([30, 20]);
  });

  it("keeps a command name with spaces and parentheses, and ends the chain at a line that does not parse", () => {
    const read = parseShimEntry(entry([stat(30, "sh", 21, 900), stat(21, "tmux: (client)", 20, 800), "garbage", stat(20, "x", 1, 1)]));
    expect(read.ok && [...read.entry.stats.keys()]).toEqual([30, 21]);
  });

  it("refuses what is not an entry", () => {
    expect(parseShimEntry(Buffer.from("{}")).ok).toBe(false);
    expect(parseShimEntry(Buffer.from("tongs-agents-spool 1\nx\n1\n")).ok).toBe(false);
    expect(parseShimEntry(Buffer.from("tongs-agents-spool 1\n20\n2\n" + stat(30, "sh", 20, 900))).ok).toBe(false);
    expect(parseShimEntry(entry(["garbage"])).ok).toBe(false);
  });
});

describe("entryOrder", () => {
  it("reads the spawn evidence from the name, and nothing else", () => {
    expect(entryOrder("1234-567.ev")).toEqual({ spawn_start: 1234, spawn_pid: 567 });
    expect(entryOrder("1234-567.tmp")).toBeUndefined();
    expect(entryOrder("../1234-567.ev")).toBeUndefined();
  });
});

describe("capturedProcessSource", () => {
  const captured = new Map([
    [30, stat(30, "sh", 20, 900)],
    [20, stat(20, "claude", 1, 500, 34816)],
  ]);
  const live = (processes: Record<number, { start: number; exe: string; argv: string[] }>): ProcessSource => ({
    basics: async (pid) => {
      const found = processes[pid];
      return found && { pid, ppid: 1, comm: "other", exe: found.exe, startToken: `linux:boot:${found.start}`, tty: undefined };
    },
    argv: async (pid) => processes[pid]?.argv,
  });

  it("gives the kernel facts as captured, even when the process is gone", async () => {
    const source = capturedProcessSource(captured, { live: live({}), bootId: "boot" });
    expect(await source.basics(20)).toEqual({
      pid: 20,
      ppid: 1,
      comm: "claude",
      exe: undefined,
      startToken: "linux:boot:500",
      tty: "/dev/pts/0",
    });
    expect(await source.argv(20)).toBeUndefined();
    expect(await source.basics(99)).toBeUndefined();
  });

  it("adds the live executable and arguments only for the same process, never for a later one with its PID", async () => {
    const same = capturedProcessSource(captured, {
      live: live({ 20: { start: 500, exe: "/bin/claude", argv: ["claude"] } }),
      bootId: "boot",
    });
    expect((await same.basics(20))?.exe).toBe("/bin/claude");
    expect(await same.argv(20)).toEqual(["claude"]);
    const reused = capturedProcessSource(captured, {
      live: live({ 20: { start: 777, exe: "/bin/evil", argv: ["evil"] } }),
      bootId: "boot",
    });
    expect(await reused.basics(20)).toMatchObject({ comm: "claude", exe: undefined, startToken: "linux:boot:500" });
    expect(await reused.argv(20)).toBeUndefined();
  });
});

describe("firedAt", () => {
  it("is the shim's start time on the epoch clock: uptime and start ticks (10 ms each) give how long ago", () => {
    const read = parseShimEntry(entry([stat(30, "sh", 20, 90_000)]));
    if (!read.ok) throw new Error(read.detail);
    // Started at 900.00 s of uptime, now 901.25 s: fired 1250 ms ago, and up to 10 ms more (both readings are cut to
    // 10 ms: started as late as 900.009, now as late as 901.259): taken as 1260 ms ago, never later than it was.
    expect(firedAt(read.entry, { now: 1_000_000, uptimeSeconds: 901.25 })).toBe(998_740);
    expect(firedAt(read.entry, { now: 1_000_000, uptimeSeconds: 899 })).toBeUndefined();
  });
});
