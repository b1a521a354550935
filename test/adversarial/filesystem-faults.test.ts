// File system faults: a read-only and a full state dir (real tmpfs mounts: this suite runs as root, as CI does),
// symlinks, FIFOs, directories and plain files planted where records, spools, locks, pointers, the sessions dir and the
// state dir belong. For each: every hook exits 0, silent, within its bound; nothing outside the state dir changes;
// `tongs-agents list` answers (never hangs) and says what is wrong; a record is never torn.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, instanceDigest } from "../../src/core/identity.ts";
import { sessionsDirOf } from "../../src/store/paths.ts";
import { instancePointerPath, readRecord, recordPath } from "../../src/store/records.ts";
import { spoolDirOf } from "../../src/store/spool.ts";
import { writeConfigFile } from "../../src/install/file-edit.ts";
import { CLI_BIN, HOOK_BIN, startFakeHarness, type FakeHarness } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { max, ms, printFigures, tree } from "./support.ts";

/** Generous bounds: the hook's own are 2 s for input and 0.9 s of work; the CLI has none but must not hang. */
const HOOK_BOUND_MS = 8000;
const CLI_BOUND_MS = 20_000;

let sandbox: Sandbox;
let pi: FakeHarness;
const mounts: string[] = [];
beforeEach(async () => {
  sandbox = makeSandbox("tongs-adv-fs-");
  sandbox.env.TONGS_AGENTS_DEBUG = "1";
  pi = await startFakeHarness("pi", sandbox);
});
afterEach(async () => {
  await pi.stop();
  for (const mount of mounts.splice(0).reverse()) execFileSync("umount", [mount]);
  sandbox.cleanup();
});

interface Run {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** A process with a hard bound: killed (and reported so) when it outlives it, so a hang fails instead of stalling. */
function bounded(args: readonly string[], input: string | undefined, env: NodeJS.ProcessEnv, bound: number): Promise<Run> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? "");
    const killer = setTimeout(() => child.kill("SIGKILL"), bound);
    child.on("close", (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

const SESSION = "fs";
const INSTANCE = "inst";
const digest = () => digestOf(canonicalId("pi", SESSION, INSTANCE)) as string;
const fleet = (sequence: number, event = "agent-start", status = "running") =>
  JSON.stringify({
    schema_version: 1,
    event_id: `pi.${event}`,
    session_id: SESSION,
    instance_id: INSTANCE,
    sequence,
    pid: pi.pid,
    cwd: "/w",
    status,
    detail: "",
    tool: "",
  });

/** The hooks each fault is attacked with: a Pi event on the planted record, and native events of other sessions. */
async function attack(stateDir: string, from: number): Promise<Run[]> {
  const env = { ...sandbox.env, TONGS_AGENTS_STATE_DIR: stateDir };
  const runs: Run[] = [];
  runs.push(await bounded([HOOK_BIN, "fleet-event", "--agent", "pi"], fleet(from), env, HOOK_BOUND_MS));
  runs.push(await bounded([HOOK_BIN, "fleet-event", "--agent", "pi"], fleet(from + 1, "agent-settled", "idle"), env, HOOK_BOUND_MS));
  runs.push(
    await bounded(
      [HOOK_BIN, "session-start", "--agent", "claude"],
      JSON.stringify({ session_id: "native", cwd: "/w" }),
      env,
      HOOK_BOUND_MS,
    ),
  );
  return runs;
}

const silent = (run: Run) => run.code === 0 && run.signal === null && run.stdout === "" && run.stderr === "";

async function list(stateDir: string): Promise<Run> {
  return bounded([CLI_BIN, "list", "--json", "--all"], undefined, { ...sandbox.env, TONGS_AGENTS_STATE_DIR: stateDir }, CLI_BOUND_MS);
}

/** A state dir with one record of the session the faults aim at. */
async function seeded(stateDir: string): Promise<string> {
  const first = await bounded(
    [HOOK_BIN, "fleet-event", "--agent", "pi"],
    fleet(1, "session-start", "started"),
    { ...sandbox.env, TONGS_AGENTS_STATE_DIR: stateDir },
    HOOK_BOUND_MS,
  );
  expect(silent(first)).toBe(true);
  const path = recordPath(sessionsDirOf(stateDir), digest());
  expect(readRecord(path)).toMatchObject({ kind: "record", record: { sequence: 1 } });
  return path;
}

function mountTmpfs(dir: string, options: string): void {
  mkdirSync(dir, { recursive: true });
  // Root can mount a tmpfs (as this suite runs, and CI); without that, the test fails here saying so.
  execFileSync("mount", ["-t", "tmpfs", "-o", options, "tongs-adversarial", dir]);
  mounts.push(dir);
}

describe("file system faults", () => {
  it("a read-only state dir (tmpfs remounted read-only): hooks exit 0 silently, the record stays, list answers", async () => {
    const mount = join(sandbox.root, "ro");
    mountTmpfs(mount, "size=4m,mode=0700");
    const stateDir = join(mount, "state");
    const path = await seeded(stateDir);
    const before = readFileSync(path, "utf8");
    execFileSync("mount", ["-o", "remount,ro", mount]);
    const runs = await attack(stateDir, 2);
    const listed = await list(stateDir);
    printFigures("read-only state dir", {
      hooks: runs.length,
      "exit 0, silent": runs.filter(silent).length,
      "max hook wall time": ms(max(runs.map((run) => run.ms))),
      "record unchanged": readFileSync(path, "utf8") === before,
      "list exit code": String(listed.code),
    });
    expect(runs.filter((run) => !silent(run))).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ sessions: [expect.objectContaining({ session_id: SESSION })], invalid: [] });
  });

  it("a full disk (1 MiB tmpfs filled up): hooks exit 0 silently, the record is never torn, and events apply once there is room", async () => {
    const mount = join(sandbox.root, "full");
    mountTmpfs(mount, "size=1m,mode=0700");
    const stateDir = join(mount, "state");
    const path = await seeded(stateDir);
    const before = readFileSync(path, "utf8");
    const settings = join(mount, "settings.json");
    writeFileSync(settings, '{"model": "opus"}\n');
    // Fill every block left: one large write that stops at ENOSPC, then small ones until nothing fits.
    const filler = join(mount, "filler");
    try {
      writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
    }
    for (let index = 0; ; index++) {
      try {
        writeFileSync(join(mount, `crumb-${index}`), Buffer.alloc(512));
      } catch {
        break;
      }
    }
    const runs = await attack(stateDir, 2);
    const duringFull = readFileSync(path, "utf8");
    const install = await writeConfigFile(settings, '{"model": "opus"}\n', '{"model": "opus", "hooks": {}}\n');
    const listed = await list(stateDir);
    rmSync(filler, { force: true });
    const after = await bounded(
      [HOOK_BIN, "fleet-event", "--agent", "pi"],
      fleet(10),
      { ...sandbox.env, TONGS_AGENTS_STATE_DIR: stateDir },
      HOOK_BOUND_MS,
    );
    const record = readRecord(path);
    printFigures("full disk", {
      how: "a 1 MiB tmpfs, filled to ENOSPC",
      hooks: runs.length,
      "exit 0, silent": runs.filter(silent).length,
      "max hook wall time": ms(max(runs.map((run) => run.ms))),
      "record unchanged while full": duringFull === before,
      "installer write while full": install.ok ? "written" : install.detail,
      "list exit code": String(listed.code),
      "record after space was freed": record.kind === "record" ? `sequence ${record.record.sequence}` : record.kind,
    });
    expect(runs.filter((run) => !silent(run))).toEqual([]);
    expect(duringFull).toBe(before);
    expect(install).toMatchObject({ ok: false, detail: expect.stringContaining("ENOSPC") });
    expect(readFileSync(settings, "utf8")).toBe('{"model": "opus"}\n');
    expect(listed.code).toBe(0);
    expect(silent(after)).toBe(true);
    expect(record).toMatchObject({ kind: "record", record: { sequence: 10 } });
  });

  // What is planted where: [name, plant(stateDir, outside) -> what must stay as it is].
  // What seeding wrote at a path is replaced by what is planted there.
  const fresh = (path: string) => {
    rmSync(path, { force: true });
    return path;
  };
  const record = (stateDir: string) => fresh(recordPath(sessionsDirOf(stateDir), digest()));
  const plants: [string, (stateDir: string, outside: string) => void][] = [
    [
      "a symlink as the record",
      (stateDir, outside) => {
        writeFileSync(join(outside, "target.json"), "{}");
        symlinkSync(join(outside, "target.json"), record(stateDir));
      },
    ],
    ["a FIFO as the record", (stateDir) => execFileSync("mkfifo", [record(stateDir)])],
    ["a directory as the record", (stateDir) => mkdirSync(record(stateDir))],
    [
      "a symlink as the spool dir",
      (stateDir, outside) => {
        writeFileSync(join(outside, "00000000000000000001-1-00000000.json"), "{}");
        symlinkSync(outside, spoolDirOf(sessionsDirOf(stateDir), digest()));
      },
    ],
    ["a FIFO as the spool dir", (stateDir) => execFileSync("mkfifo", [spoolDirOf(sessionsDirOf(stateDir), digest())])],
    ["a plain file as the spool dir", (stateDir) => writeFileSync(spoolDirOf(sessionsDirOf(stateDir), digest()), "x")],
    ["a symlink as the lock", (stateDir, outside) => symlinkSync(outside, `${recordPath(sessionsDirOf(stateDir), digest())}.lock`)],
    [
      "a symlink as the instance pointer",
      (stateDir, outside) => {
        writeFileSync(join(outside, "pointer.json"), "{}");
        symlinkSync(join(outside, "pointer.json"), fresh(instancePointerPath(sessionsDirOf(stateDir), instanceDigest("pi", INSTANCE))));
      },
    ],
    ["a FIFO as hook.log", (stateDir) => execFileSync("mkfifo", [fresh(join(stateDir, "hook.log"))])],
    ["a FIFO as the validated-record cache", (stateDir) => execFileSync("mkfifo", [fresh(join(stateDir, "validated-records.json"))])],
    ["a symlink as the sessions dir", (stateDir, outside) => symlinkSync(outside, sessionsDirOf(stateDir))],
    ["a plain file as the sessions dir", (stateDir) => writeFileSync(sessionsDirOf(stateDir), "x")],
    ["a symlink as the state dir", (stateDir, outside) => symlinkSync(outside, stateDir)],
    ["a FIFO as the state dir", (stateDir) => execFileSync("mkfifo", [stateDir])],
    ["a plain file as the state dir", (stateDir) => writeFileSync(stateDir, "x")],
    [
      "a sticky 1777 directory as the state dir",
      (stateDir) => {
        mkdirSync(stateDir);
        execFileSync("chmod", ["1777", stateDir]);
      },
    ],
  ];

  it(`${plants.length} things planted where the store's files belong: hooks exit 0 silently, nothing outside changes, list answers`, async () => {
    const rows: string[] = [];
    const failures: unknown[] = [];
    let slowest = 0;
    for (const [index, [name, plant]] of plants.entries()) {
      const stateDir = join(sandbox.root, `state-${index}`);
      const outside = join(sandbox.root, `outside-${index}`);
      mkdirSync(outside);
      // The record-level faults need a state dir with the record's neighbours in place; the dir-level ones do not.
      if (!/state dir$/.test(name)) {
        mkdirSync(sessionsDirOf(stateDir), { recursive: true, mode: 0o700 });
        if (!/sessions dir$/.test(name)) await seeded(stateDir);
        if (/sessions dir$/.test(name)) rmSync(sessionsDirOf(stateDir), { recursive: true });
      }
      plant(stateDir, outside);
      const before = tree(outside);
      const runs = await attack(stateDir, 2);
      const listed = await list(stateDir);
      slowest = Math.max(slowest, ...runs.map((run) => run.ms));
      const changed =
        [...tree(outside)].filter(([path, kind]) => before.get(path) !== kind).length +
        [...before.keys()].filter((path) => !existsSync(join(outside, path))).length;
      // list --json prints its listing, or the reason it cannot list ({"ok": false, "reason", "detail"}), never nothing.
      const printed = listed.signal
        ? undefined
        : (JSON.parse(listed.stdout || "null") as { invalid?: unknown[]; reason?: string; detail?: string } | null);
      const answer = listed.signal
        ? `killed after ${CLI_BOUND_MS} ms`
        : listed.code === 0
          ? `exit 0, ${printed?.invalid?.length} invalid listed`
          : `exit ${listed.code}, ${printed?.reason}: ${printed?.detail?.slice(0, 70)}`;
      rows.push(`${name}: hooks ${runs.filter(silent).length}/${runs.length} silent; outside changed ${changed}; list ${answer}`);
      if (runs.some((run) => !silent(run)) || changed > 0 || listed.signal !== null || (listed.code !== 0 && !printed?.detail))
        failures.push({ name, runs, listed, changed });
    }
    printFigures("things planted in place of the store's files", {
      ...Object.fromEntries(rows.map((row, index) => [`${index + 1}`, row])),
      "max hook wall time": ms(slowest),
    });
    expect(failures).toEqual([]);
  });
});
