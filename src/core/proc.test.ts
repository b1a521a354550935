import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import {
  darwinProcessSource,
  findAncestor,
  linuxProcessSource,
  matchesProcessName,
  parseDarwinPs,
  parseProcStat,
  startTokenOf,
  ttyNameFromNr,
  type ProcessInfo,
  type ProcessSource,
} from "./proc.ts";

const info = (pid: number, ppid: number, comm: string, argv: string[] = [comm], exe?: string): ProcessInfo =>
  fakeProcess(pid, ppid, comm, argv, { exe });
const table = (...rows: ProcessInfo[]): ProcessSource => fakeProcessSource(rows);
const infoOf = async (source: ProcessSource, pid: number) => {
  const basics = await source.basics(pid);
  return basics && { ...basics, argv: (await source.argv(pid)) ?? [] };
};

describe("parseProcStat", () => {
  it("cuts the comm at the last parenthesis, so names with spaces and parentheses parse", () => {
    const stat =
      "4769 (tmux: client) S 1 4769 4769 34816 4769 4194560 1 0 0 0 2 1 0 0 20 0 1 0 123456 10000 100 1844674 1 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
    expect(parseProcStat(stat)).toEqual({ comm: "tmux: client", state: "S", ppid: 1, ttyNr: 34816, flags: 4194560, startTime: "123456" });
    expect(parseProcStat("12 (a) b) c) S 7 12 12 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 999 0 0")?.comm).toBe("a) b) c");
  });

  it("rejects truncated input", () => {
    expect(parseProcStat("12 (x) S 1")).toBeUndefined();
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  it("names Unix98 ptys and virtual consoles from tty_nr", () => {
    expect(ttyNameFromNr(34816)).toBe("/dev/pts/0"); // major 136, minor 0
    expect(ttyNameFromNr((136 << 8) | 5)).toBe("/dev/pts/5");
    expect(ttyNameFromNr((137 << 8) | 2)).toBe("/dev/pts/258");
    expect(ttyNameFromNr((4 << 8) | 2)).toBe("/dev/tty2");
    expect(ttyNameFromNr(0)).toBeUndefined();
  });
});

describe("linuxProcessSource", () => {
  it("reads this process: name, parent, argv and a start token that a second read repeats", async () => {
    const source = linuxProcessSource();
    const self = await infoOf(source, process.pid);
    expect(self?.ppid).toBe(process.ppid);
    expect(self?.comm).toBe(readFileSync("/proc/self/comm", "utf8").trim());
    expect(self?.argv).toEqual(readFileSync("/proc/self/cmdline", "utf8").split("\0").slice(0, -1));
    expect(self?.startToken).toMatch(/^linux:[0-9a-f-]{36}:\d+$/);
    expect((await infoOf(source, process.pid))?.startToken).toBe(self?.startToken);
  });

  it("reports a process that exited as gone", async () => {
    const source = linuxProcessSource();
    const first = spawn("sleep", ["5"]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const token = (await infoOf(source, first.pid as number))?.startToken;
    first.kill("SIGKILL");
    await new Promise((resolve) => first.on("exit", resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await infoOf(source, first.pid as number)).toBeUndefined();
    expect(token).toMatch(/^linux:/);
  });

  it("counts a zombie as gone: it has exited, only its PID is not reaped yet", async () => {
    // `sleep 0` exits at once; its parent becomes `exec sleep 5`, which never reaps it: a zombie for five seconds.
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 5"]);
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (data) => resolve(String(data)))));
    try {
      let state = "";
      for (let tries = 0; tries < 50 && state !== "Z"; tries++) {
        state = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"))?.state ?? "";
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(state).toBe("Z");
      expect(await infoOf(linuxProcessSource(), pid)).toBeUndefined();
      expect(await linuxProcessSource().startToken?.(pid)).toBeUndefined();
    } finally {
      parent.kill("SIGKILL");
    }
  });

  it("returns undefined for a PID that does not exist and for nonsense PIDs", async () => {
    const source = linuxProcessSource();
    expect(await infoOf(source, 2 ** 22 + 7)).toBeUndefined();
    expect(await infoOf(source, -1)).toBeUndefined();
    expect(await infoOf(source, 1.5)).toBeUndefined();
    for (const pid of [2 ** 22 + 7, -1, 1.5]) expect(await source.startToken?.(pid)).toBeUndefined();
  });

  it("gives the start token alone as basics gives it, for this process and a child until it is gone", async () => {
    const source = linuxProcessSource();
    expect(await source.startToken?.(process.pid)).toBe((await source.basics(process.pid))?.startToken);
    const child = spawn("sleep", ["5"]);
    await once(child, "spawn");
    const token = await startTokenOf(source, child.pid as number);
    expect(token).toBe((await source.basics(child.pid as number))?.startToken);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(await startTokenOf(source, child.pid as number)).toBeUndefined();
  });
});

describe("startTokenOf", () => {
  it("asks basics where a source has no cheaper way", async () => {
    const source = table(info(40, 1, "claude"));
    expect(await startTokenOf(source, 40)).toBe("linux:boot:4000");
    expect(await startTokenOf(source, 41)).toBeUndefined();
  });
});

describe("darwinProcessSource (recorded macOS ps output)", () => {
  const recorded: Record<string, string> = {
    "-o pid=,ppid=,tty=,lstart=,comm= -p 812": "  812   801 ttys003  Sat Nov 28 09:14:02 2026     /Users/u/.local/bin/claude\n",
    "-o args= -p 812": "claude --resume\n",
    "-o pid=,ppid=,tty=,lstart=,comm= -p 900":
      "  900     1 ??       Sun Nov  1 10:00:00 2026     /Applications/iTerm.app/Contents/MacOS/iTerm2\n",
    "-o args= -p 900": "/Applications/iTerm.app/Contents/MacOS/iTerm2\n",
  };
  const source = darwinProcessSource(async (file, args) => {
    expect(file).toBe("ps");
    const stdout = recorded[args.join(" ")];
    return { stdout: stdout ?? "", ok: stdout !== undefined };
  });

  it("parses pid, parent, tty, start time and name", async () => {
    expect(await infoOf(source, 812)).toEqual({
      pid: 812,
      ppid: 801,
      comm: "claude",
      exe: "/Users/u/.local/bin/claude",
      argv: ["claude", "--resume"],
      startToken: "darwin:Sat Nov 28 09:14:02 2026",
      tty: "/dev/ttys003",
    });
  });

  it("normalizes the padded day of month and knows processes without a tty", async () => {
    const gui = await infoOf(source, 900);
    expect(gui?.startToken).toBe("darwin:Sun Nov 1 10:00:00 2026");
    expect(gui?.tty).toBeUndefined();
  });

  it("returns undefined when ps finds nothing", async () => {
    expect(await infoOf(source, 4242)).toBeUndefined();
    expect(parseDarwinPs("")).toBeUndefined();
  });
});

describe("findAncestor", () => {
  it("matches comm, executable basename or argv[0] basename exactly", () => {
    expect(matchesProcessName(info(1, 0, "claude"), ["claude"])).toBe(true);
    expect(matchesProcessName(info(1, 0, "MainThread", ["/opt/claude/bin/claude.exe"]), ["claude.exe"])).toBe(true);
    expect(matchesProcessName(info(1, 0, "node", ["node"], "/usr/lib/codex"), ["codex"])).toBe(true);
    expect(matchesProcessName(info(1, 0, "claudex", ["claudex"]), ["claude"])).toBe(false);
  });

  it("does not take a harness name in other arguments as evidence", async () => {
    const source = table(info(50, 40, "sh", ["/bin/sh", "-c", "claude"]), info(40, 1, "node", ["node", "/usr/bin/codex", "claude"]));
    expect(await findAncestor(50, ["claude", "codex"], { source, deadline: Date.now() + 1000 })).toEqual({
      found: false,
      reason: "not-found",
    });
  });

  it("stops at the nearest harness process (a child claude -p is its own instance)", async () => {
    const source = table(info(60, 55, "sh"), info(55, 50, "claude"), info(50, 40, "bash"), info(40, 30, "claude"));
    const result = await findAncestor(60, ["claude"], { source, deadline: Date.now() + 1000 });
    expect(result.found && result.process.pid).toBe(55);
  });

  it("gives up at the deadline when a read hangs", async () => {
    const source: ProcessSource = { basics: () => new Promise(() => undefined), argv: () => new Promise(() => undefined) };
    const started = Date.now();
    expect(await findAncestor(60, ["claude"], { source, deadline: started + 80 })).toEqual({ found: false, reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  describe("with a real hung read (a FIFO where /proc/PID/cmdline should be)", () => {
    let root: string;
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it("returns timeout instead of waiting for the FIFO", async () => {
      root = mkdtempSync(join(tmpdir(), "tongs-proc-"));
      mkdirSync(join(root, "77"));
      writeFileSync(join(root, "77", "stat"), "77 (sh) S 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4242 0 0");
      execFileSync("mkfifo", [join(root, "77", "cmdline")]);
      const started = Date.now();
      const result = await findAncestor(77, ["claude"], { source: linuxProcessSource(root), deadline: started + 150 });
      expect(result).toEqual({ found: false, reason: "timeout" });
      expect(Date.now() - started).toBeLessThan(1000);
      // Release the thread still blocked in open(): a writer lets the read finish.
      closeSync(openSync(join(root, "77", "cmdline"), "w"));
    });
  });
});
