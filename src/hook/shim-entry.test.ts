import { describe, expect, it } from "vitest";
import type { ProcessSource } from "../core/proc.ts";
import { capturedProcessSource, entryOrder, firedAt, parseShimEntry } from "./shim-entry.ts";

// /proc/PID/stat lines as the shim captures them: pid (comm) state ppid ... starttime (field 22).
const stat = (pid: number, comm: string, ppid: number, start: number, ttyNr = 0) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} ${ttyNr} -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 ${start} 1000 100`;
const entry = (
  lines: string[],
  ppid = 20,
  { reader = "44 812", argv = ["stop", "--agent", "claude"], cwd = "/w", env = ["TMUX=/tmp/t,1,0", "TMUX_PANE=", "HOME=/h"] } = {},
) =>
  Buffer.from(
    `tongs-agents-spool 2\n${ppid}\n${lines.length}\n${lines.join("\n")}\n${reader}\n` +
      [String(argv.length), ...argv, cwd, ...env].map((field) => `${field}\0`).join("") +
      "end\n",
  );

describe("parseShimEntry", () => {
  it("reads the shim's parent, its own PID, the captured stat lines, the reader, the arguments, cwd and environment", () => {
    const read = parseShimEntry(entry([stat(30, "sh", 20, 900), stat(20, "claude", 1, 500, 34816)]));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.entry).toMatchObject({ ppid: 20, pid: 30, chain: [30, 20], reader: { pid: 44, start: "812" } });
    expect([...read.entry.stats.keys()]).toEqual([30, 20]);
    expect(read.entry.argv).toEqual(["stop", "--agent", "claude"]);
    expect(read.entry.cwd).toBe("/w");
    // An empty value is an unset variable.
    expect(read.entry.env).toEqual({ TMUX: "/tmp/t,1,0", HOME: "/h" });
  });

  it("keeps arguments and values with newlines and spaces whole (fields end in NUL)", () => {
    const read = parseShimEntry(entry([stat(30, "sh", 20, 900)], 20, { argv: ["a\nb", "c d"], cwd: "/w/x\ny", env: ["PATH=/a b\n/c"] }));
    expect(read.ok && [read.entry.argv, read.entry.cwd, read.entry.env]).toEqual([["a\nb", "c d"], "/w/x\ny", { PATH: "/a b\n/c" }]);
  });

  it("reads a reader that was gone before the shim looked, and none for a terminal", () => {
    expect(parseShimEntry(entry([stat(30, "sh", 20, 900)], 20, { reader: "44 -" }))).toMatchObject({
      entry: { reader: { pid: 44, start: undefined } },
    });
    expect(parseShimEntry(entry([stat(30, "sh", 20, 900)], 20, { reader: "none" }))).toMatchObject({ entry: { reader: undefined } });
  });

  it("says an entry without its end mark is incomplete (its shim is still writing), and refuses a whole one that is wrong", () => {
    const whole = entry([stat(30, "sh", 20, 900)]);
    for (const cut of [0, 10, whole.length - 1])
      expect(parseShimEntry(whole.subarray(0, cut))).toMatchObject({ ok: false, incomplete: true });
    expect(parseShimEntry(entry([stat(30, "sh", 20, 900)], 20, { env: ["SECRET=x"] }))).toMatchObject({ ok: false, incomplete: false });
    expect(parseShimEntry(entry([stat(30, "sh", 20, 900)], 20, { reader: "x" }))).toMatchObject({ ok: false, incomplete: false });
  });

  it("keeps a command name with spaces and parentheses, and ends the chain at a line that does not parse", () => {
    const read = parseShimEntry(entry([stat(30, "sh", 21, 900), stat(21, "tmux: (client)", 20, 800), "garbage", stat(20, "x", 1, 1)]));
    expect(read.ok && [...read.entry.stats.keys()]).toEqual([30, 21]);
  });

  it("refuses what is not an entry", () => {
    expect(parseShimEntry(Buffer.from("{}\0end\n")).ok).toBe(false);
    expect(parseShimEntry(Buffer.from("tongs-agents-spool 1\nx\n1\n\0end\n")).ok).toBe(false);
    expect(parseShimEntry(Buffer.from("tongs-agents-spool 2\n20\n2\n" + stat(30, "sh", 20, 900) + "\0end\n")).ok).toBe(false);
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
