// The process table read from /proc: against a fake /proc tree (every case a listing can meet: zombies, kernel
// threads, a process gone between the listing and the read, another user's, odd bytes in the arguments), and against
// the real /proc with this process and a child started and stopped by PID.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { linuxProcessSource, parseProcStat } from "./proc.ts";
import { parseCmdline, processTable, readLinuxProcessTable, type ListedProcess } from "./process-table.ts";

const BOOT = "0b5e6c1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b";
const PF_KTHREAD = 0x00200000;
const PTS_3 = (136 << 8) | 3;

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
});

interface FakeProcess {
  pid: number;
  ppid?: number;
  comm: string;
  state?: string;
  flags?: number;
  ttyNr?: number;
  start?: number;
  /** Written as is: NUL-separated arguments; undefined: no cmdline file (the process went away meanwhile). */
  cmdline?: Buffer | string;
  exe?: string;
  /** The effective uid /proc/PID/status names (the directory itself belongs to the test's user). */
  statusEuid?: number;
  /** No stat file: gone between the listing and the read. */
  noStat?: boolean;
}

function fakeProc(processes: FakeProcess[], extra: string[] = []): string {
  const root = mkdtempSync(join(tmpdir(), "tongs-proc-"));
  roots.push(root);
  mkdirSync(join(root, "sys", "kernel", "random"), { recursive: true });
  writeFileSync(join(root, "sys", "kernel", "random", "boot_id"), `${BOOT}\n`);
  for (const name of extra) mkdirSync(join(root, name));
  for (const proc of processes) {
    const dir = join(root, String(proc.pid));
    mkdirSync(dir);
    const fields = [proc.state ?? "S", proc.ppid ?? 1, proc.pid, proc.pid, proc.ttyNr ?? 0, -1, proc.flags ?? 4194560];
    const rest = [0, 0, 0, 0, 1, 2, 0, 0, 20, 0, 1, 0, proc.start ?? 5000, 10000, 100];
    if (!proc.noStat) writeFileSync(join(dir, "stat"), `${proc.pid} (${proc.comm}) ${[...fields, ...rest].join(" ")}\n`);
    if (proc.cmdline !== undefined) writeFileSync(join(dir, "cmdline"), proc.cmdline);
    if (proc.exe !== undefined) symlinkSync(proc.exe, join(dir, "exe"));
    if (proc.statusEuid !== undefined)
      writeFileSync(join(dir, "status"), `Name:\t${proc.comm}\nUid:\t${proc.statusEuid}\t${proc.statusEuid}\t0\t0\n`);
  }
  return root;
}

const argvBytes = (...argv: string[]) => Buffer.from(`${argv.join("\0")}\0`);
const OWN = process.geteuid?.() ?? 0;

describe("parseCmdline", () => {
  it("splits at NULs, keeps spaces inside an argument and empty arguments, and replaces bytes that are not UTF-8", () => {
    expect(parseCmdline(argvBytes("node", "/opt/my tools/cli.js", "", "--x"))).toEqual(["node", "/opt/my tools/cli.js", "", "--x"]);
    expect(parseCmdline(Buffer.concat([Buffer.from("claude\0caf"), Buffer.from([0xff, 0xfe]), Buffer.from("\0")]))).toEqual([
      "claude",
      "caf\uFFFD\uFFFD",
    ]);
    // A process that rewrote its arguments in place as one string has no NUL at the end.
    expect(parseCmdline(Buffer.from("npm exec vitest"))).toEqual(["npm exec vitest"]);
    expect(parseCmdline(Buffer.alloc(0))).toEqual([]);
  });
});

describe("readLinuxProcessTable (a fake /proc)", () => {
  it("lists live processes of the user with parent, name, exact arguments, start token and terminal", async () => {
    const root = fakeProc(
      [
        { pid: 100, comm: "bash", cmdline: argvBytes("-bash"), exe: "/usr/bin/bash", ttyNr: PTS_3 },
        { pid: 200, ppid: 100, comm: "claude", cmdline: argvBytes("node", "/opt/my tools/claude.js"), exe: "/usr/bin/node", start: 777 },
        // The executable was replaced on disk (an upgrade): named after it still.
        { pid: 201, ppid: 100, comm: "codex", cmdline: argvBytes("codex"), exe: "/usr/lib/codex/codex (deleted)" },
        // No executable link to read: named by its comm.
        { pid: 202, ppid: 100, comm: "sleep", cmdline: argvBytes("sleep", "60") },
      ],
      ["self", "sys-not-a-pid", "0"],
    );
    const table = await readLinuxProcessTable({ procRoot: root, euid: OWN });
    const byPid = new Map(table?.map((proc) => [proc.pid, proc]));
    expect([...byPid.keys()].sort()).toEqual([100, 200, 201, 202]);
    expect(byPid.get(100)).toEqual<ListedProcess>({
      pid: 100,
      ppid: 1,
      name: "bash",
      cmd: "-bash",
      argv: ["-bash"],
      comm: "bash",
      startToken: `linux:${BOOT}:5000`,
      tty: "/dev/pts/3",
    });
    expect(byPid.get(200)).toMatchObject({
      ppid: 100,
      name: "node",
      comm: "claude",
      argv: ["node", "/opt/my tools/claude.js"],
      cmd: "node /opt/my tools/claude.js",
      startToken: `linux:${BOOT}:777`,
      tty: undefined,
    });
    expect(byPid.get(201)?.name).toBe("codex");
    expect(byPid.get(202)?.name).toBe("sleep");
  });

  it("leaves out zombies, dead entries, kernel threads and processes gone between the listing and the read", async () => {
    const root = fakeProc([
      { pid: 10, comm: "claude", cmdline: argvBytes("claude") },
      { pid: 11, comm: "claude", state: "Z", cmdline: "" },
      { pid: 12, comm: "claude", state: "X", cmdline: "" },
      { pid: 13, ppid: 2, comm: "kworker/0:1", flags: 0x04208060 | PF_KTHREAD, cmdline: "" },
      { pid: 14, comm: "claude", noStat: true, cmdline: argvBytes("claude") },
      { pid: 15, comm: "claude" }, // no cmdline file
      { pid: 16, comm: "claude", cmdline: argvBytes("claude") },
    ]);
    writeFileSync(join(root, "16", "stat"), "16 (claude) S 1"); // cut short: unreadable as a stat line
    expect((await readLinuxProcessTable({ procRoot: root, euid: OWN }))?.map((proc) => proc.pid)).toEqual([10]);
  });

  it("keeps only processes of the effective user, a non-dumpable one (its directory root's) by its status file", async () => {
    const root = fakeProc([
      { pid: 20, comm: "ssh", cmdline: argvBytes("ssh", "host"), statusEuid: 4242 },
      { pid: 21, comm: "cron", cmdline: argvBytes("cron"), statusEuid: 0 },
      { pid: 22, comm: "agent", cmdline: argvBytes("agent") },
    ]);
    // The fake's directories belong to the test's user; as another user, only a status file naming it counts.
    if (OWN === 0) expect((await readLinuxProcessTable({ procRoot: root, euid: 4242 }))?.map((proc) => proc.pid)).toEqual([20]);
    expect((await readLinuxProcessTable({ procRoot: root, euid: OWN }))?.map((proc) => proc.pid).sort()).toEqual([20, 21, 22]);
  });

  it("reads a long command line whole, up to its bound", async () => {
    const long = "x".repeat(10_000);
    const root = fakeProc([{ pid: 30, comm: "node", cmdline: argvBytes("node", long, "end") }]);
    expect((await readLinuxProcessTable({ procRoot: root, euid: OWN }))?.[0]?.argv).toEqual(["node", long, "end"]);
  });

  it("is undefined where /proc cannot be listed, and the table then comes from the fallback (`ps`)", async () => {
    const missing = join(tmpdir(), "tongs-no-proc-here");
    expect(await readLinuxProcessTable({ procRoot: missing })).toBeUndefined();
    const fromPs: ListedProcess[] = [{ pid: 7, ppid: 1, name: "claude", cmd: "claude" }];
    expect(await processTable({ platform: "linux", procRoot: missing, fallback: async () => fromPs })()).toBe(fromPs);
    expect(await processTable({ platform: "darwin", fallback: async () => fromPs })()).toBe(fromPs);
  });
});

describe("readLinuxProcessTable (the real /proc)", () => {
  it("lists this process as proc.ts sees it, and a child while it runs, never after it was stopped", async () => {
    const list = processTable({ platform: "linux" });
    const self = (await list()).find((proc) => proc.pid === process.pid);
    const basics = await linuxProcessSource().basics(process.pid);
    expect(self).toMatchObject({ ppid: process.ppid, comm: basics?.comm, startToken: basics?.startToken, tty: basics?.tty });
    expect(self?.argv).toEqual(await linuxProcessSource().argv(process.pid));

    const argv = [process.execPath, "-e", "setTimeout(() => {}, 30000)", "an argument with spaces"];
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: "ignore" });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await once(child, "spawn");
      const listed = (await list()).find((proc) => proc.pid === child.pid);
      expect(listed).toMatchObject({ ppid: process.pid, name: basename(realpathSync(process.execPath)), argv });
      expect(listed?.startToken).toBe((await linuxProcessSource().basics(child.pid as number))?.startToken);
    } finally {
      process.kill(child.pid as number, "SIGKILL");
      await exited;
    }
    expect((await list()).some((proc) => proc.pid === child.pid)).toBe(false);
  });

  it("leaves out a real zombie: a child its parent never reaps", async () => {
    // The shell starts `sleep 0` and then becomes `sleep 30`, which never waits for it.
    const parent = spawn("/bin/sh", ["-c", "sleep 0 & exec sleep 30"], { stdio: "ignore" });
    const exited = new Promise((resolve) => parent.once("exit", resolve));
    try {
      let zombie: string | undefined;
      for (let tries = 0; zombie === undefined && tries < 200; tries++) {
        zombie = readdirSync("/proc")
          .filter((name) => /^\d+$/.test(name))
          .find((name) => {
            const stat = readProcStat(name);
            return stat !== undefined && stat.ppid === parent.pid && stat.state === "Z";
          });
        if (zombie === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(zombie).toBeDefined();
      const pids = (await processTable({ platform: "linux" })()).map((proc) => proc.pid);
      expect(pids).toContain(parent.pid);
      expect(pids).not.toContain(Number(zombie));
    } finally {
      process.kill(parent.pid as number, "SIGKILL");
      await exited;
    }
  });
});

function readProcStat(pid: string) {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}
