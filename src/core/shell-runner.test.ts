import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run, type RunOptions } from "./exec.ts";
import { parseProcStat } from "./proc.ts";
import { shellRunner, type ShellRunner } from "./shell-runner.ts";

// Real shells and programs: the point is that a program started by the resident shell sees what Node's spawn gives it.
let temp: string;
let shells: ShellRunner;
beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), "tongs-shell-runner-"));
  shells = shellRunner(join(temp, "run"));
});
afterEach(() => {
  shells.close();
  rmSync(temp, { recursive: true, force: true });
});

/** Ended: no process, or a zombie its new parent has not reaped yet. */
function gone(pid: number): boolean {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"))?.state === "Z";
  } catch {
    return true;
  }
}

/** Wait (up to 2 s) until `check` holds, then assert it. */
async function settled(check: () => boolean): Promise<void> {
  for (let waited = 0; !check() && waited < 2000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(check()).toBe(true);
}

const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/nowhere",
  LANG: "C.UTF-8",
  ODD: 'it\'s "quoted" $HOME `x` \\ ;\nline two',
};

describe("shellRunner gives a program what Node's spawn gives it", () => {
  const cases: [string, string, string[], RunOptions][] = [
    ["output, errors and the exit code", "sh", ["-c", "echo out; echo err >&2; exit 3"], { env }],
    [
      "arguments with quotes, spaces, newlines and non-ASCII",
      "printf",
      ["%s|", "a b", "it's", '"x"', "$HOME", "two\nlines", "é ✓", ""],
      { env },
    ],
    ["an empty environment", "/usr/bin/env", [], { env: {} }],
    ["the input", "cat", [], { env, input: "line 1\nit's line 2\n" }],
    ["a program that is not there", "no-such-program-here", [], { env }],
    ["a path that is not there", "/no/such/program", [], { env }],
    ["the working directory", "pwd", ["-P"], { env }],
    ["a program ended by a signal", "sh", ["-c", "kill -TERM $$"], { env }],
  ];
  it.each(cases)("%s", async (_name, file, args, options) => {
    const viaShell = await shells.run(file, args, options);
    expect(viaShell).toEqual(await run(file, args, options));
  });

  it("exactly the environment asked for, nothing the shell sets (in the shell's order)", async () => {
    const variables = (result: { stdout: string }) => result.stdout.split(/\n(?=[A-Z]+=)/).sort();
    const viaShell = await shells.run("env", [], { env });
    expect(variables(viaShell)).toEqual(variables(await run("env", [], { env })));
    expect(variables(viaShell)).toHaveLength(4);
  });

  it("the working directory asked for, as Node's spawn gives it (the keypress server runs a verb's programs in its caller's)", async () => {
    const asked = await shells.run("pwd", ["-P"], { env, cwd: temp });
    expect(asked).toEqual(await run("pwd", ["-P"], { env, cwd: temp }));
    expect(asked.stdout).toBe(realpathSync(temp));
  });

  it("the caller's working directory at the time of the call, when none is asked for", async () => {
    const before = process.cwd();
    try {
      process.chdir(temp);
      expect((await shells.run("pwd", ["-P"], { env })).stdout).toBe(realpathSync(temp));
    } finally {
      process.chdir(before);
    }
  });
});

describe("shellRunner's shells", () => {
  it("one shell starts the programs one after another; two at once get two shells", async () => {
    const parent = async () => (await shells.run("sh", ["-c", "echo $PPID"], { env })).stdout;
    const first = await parent();
    expect(await parent()).toBe(first);
    const [slow, quick] = await Promise.all([shells.run("sh", ["-c", "sleep 0.2; echo $PPID"], { env }).then((r) => r.stdout), parent()]);
    expect(slow).not.toBe(quick);
    expect([slow, quick]).toContain(first);
  });

  it("a program past its bound is killed with its shell, and the next program gets a new shell", async () => {
    const first = (await shells.run("sh", ["-c", "echo $PPID"], { env })).stdout;
    const started = performance.now();
    const result = await shells.run("sh", ["-c", "echo $$; exec sleep 20"], { env, timeoutMs: 300, killSignal: "SIGKILL" });
    expect(result).toMatchObject({ ok: false, code: undefined, failure: "timeout" });
    expect(performance.now() - started).toBeLessThan(2500);
    // The signal went to the whole group at once; the sleep may take a moment more than its shell to end.
    await settled(() => gone(Number(result.stdout)) && gone(Number(first))); // the sleep and its shell
    expect((await shells.run("sh", ["-c", "echo $PPID"], { env })).stdout).not.toBe(first);
  });

  it("a process an earlier program left writing to its output does not reach a later program's result", async () => {
    const first = await shells.run("sh", ["-c", "echo first; (sleep 0.3; echo LATE) & exit 0"], { env });
    expect(first.stdout).toBe("first");
    const second = await shells.run("sh", ["-c", "sleep 0.5; echo second"], { env });
    expect(second.stdout).toBe("second");
  });

  it("finds the program as execvp does (a directory of its name earlier in PATH is passed over), and keeps exit 255", async () => {
    mkdirSync(join(temp, "bin", "true"), { recursive: true });
    const path = { ...env, PATH: `${join(temp, "bin")}:${env.PATH}` };
    expect(await shells.run("true", [], { env: path })).toEqual(await run("true", [], { env: path }));
    expect(await shells.run("sh", ["-c", "exit 255"], { env })).toEqual(await run("sh", ["-c", "exit 255"], { env }));
  });

  it("runs in a working directory deleted since, and makes its work dir again when it was removed", async () => {
    const before = process.cwd();
    const gone = join(temp, "gone");
    mkdirSync(gone);
    try {
      process.chdir(gone);
      rmSync(gone, { recursive: true });
      expect(await shells.run("sh", ["-c", "echo ok"], { env })).toEqual(await run("sh", ["-c", "echo ok"], { env }));
    } finally {
      process.chdir(before);
    }
    await shells.run("true", [], { env });
    rmSync(join(temp, "run"), { recursive: true });
    expect(await shells.run("sh", ["-c", "echo again"], { env })).toMatchObject({ ok: true, stdout: "again" });
  });

  it("with no shell to start, every program runs through Node's spawn", async () => {
    const without = shellRunner(join(temp, "none"), { shell: join(temp, "no-such-shell") });
    expect(await without.run("sh", ["-c", "echo $PPID"], { env })).toEqual({ ok: true, code: 0, stdout: String(process.pid), stderr: "" });
    expect(await without.run("sh", ["-c", "echo again"], { env })).toMatchObject({ ok: true, stdout: "again" });
    without.close();
  });

  it("what a shell cannot pass faithfully runs through Node's spawn, with the same result", async () => {
    const odd = { ...env, "NAME.WITH.DOTS": "1", UID: "7" };
    expect(await shells.run("env", [], { env: odd })).toEqual(await run("env", [], { env: odd }));
  });

  it("close ends the idle shells and removes their files", async () => {
    const shell = Number((await shells.run("sh", ["-c", "echo $PPID"], { env })).stdout);
    shells.close();
    for (let tries = 0; tries < 50 && readdirSync(join(temp, "run")).length > 0; tries++) await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(join(temp, "run"))).toEqual([]);
    await settled(() => gone(shell));
    // After close, programs still run (through Node's spawn).
    expect(await shells.run("sh", ["-c", "echo ok"], { env })).toMatchObject({ ok: true, stdout: "ok" });
  });
});
