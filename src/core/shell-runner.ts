// A process runner for a long-lived process (the keypress server, src/server/): each program is started by a resident
// POSIX shell, not by Node. Node forks its whole process to start a program, which in a server of 80-120 MB takes
// 5 ms more than the same `tmux` started by a small shell (docs/benchmarks.md); a key that focuses a pane runs one.
//
// Same contract as `run` (src/core/exec.ts): the program gets exactly the environment asked for (exported one by one
// in a subshell of a shell started with an empty environment; the variables the shell itself sets are removed; where
// /bin/sh is bash, `_` is the program's path, as bash sets it), the working directory asked for (else the caller's),
// the input, and a bound. Its output goes to new files in a private directory, so that a program that hands its output to another
// process (an ssh master) cannot hold the result back. Anything the shell cannot pass faithfully (an environment
// variable name it cannot export, a NUL byte, a directory it cannot enter) and any shell that cannot be started or
// prepared runs through `run` instead.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { delimiter, join } from "node:path";
import type { Readable, Writable } from "node:stream";
import {
  DEFAULT_TIMEOUT_MS,
  failureOf,
  KILL_AFTER_MS,
  MAX_OUTPUT_BYTES,
  run,
  stripFinalNewline,
  type RunResult,
  type Runner,
} from "./exec.ts";
import { shellQuote } from "./shell-quote.ts";

export interface ShellRunner {
  readonly run: Runner;
  /** End the idle shells (a running program finishes first; its shell then ends). */
  readonly close: () => void;
}

/** Names a POSIX shell can export, minus the ones bash (some systems' /bin/sh) keeps read-only. */
const EXPORTABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const READ_ONLY_IN_BASH = new Set(["BASHOPTS", "BASH_VERSINFO", "EUID", "PPID", "SHELLOPTS", "UID"]);
/** What the shell sets in its own environment (dash, bash), removed before the program starts unless asked for. */
const SHELL_SET = ["PWD", "OLDPWD", "SHLVL", "_"];
/** Where libuv looks for a program when the environment has no PATH. */
const DEFAULT_PATH = "/usr/bin:/bin";
/** The shells kept idle for the next program; more start when programs run at once (the picker beside a key). */
const IDLE_SHELLS = 2;

/**
 * The shell says 128 + N for a program ended by signal N (1-64 on Linux); Node's spawn gives no exit code then. A
 * program that exits with such a status itself (130, say) cannot be told apart: it is reported as ended by the signal.
 * Statuses above 192 (255, which ssh uses) are exit codes.
 */
const endedBySignal = (status: number): boolean => status > 128 && status <= 128 + 64;

interface Shell {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  readonly files: { readonly input: string; readonly out: string; readonly err: string };
  /** The status line of the program running now. */
  onStatus?: (line: string | undefined) => void;
}

/** The file `execvp` would start for `file` with this environment's PATH; undefined when there is none. */
function resolveProgram(file: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = file.includes("/") ? [file] : (env.PATH ?? DEFAULT_PATH).split(delimiter).map((dir) => join(dir || ".", file));
  // As execvp: the first regular file there that may be executed (a directory of that name is passed over).
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/** `workDir`: where the programs' input and output files go (private; made when needed). `shell`: for tests. */
export function shellRunner(workDir: string, { shell: shellPath = "/bin/sh" }: { shell?: string } = {}): ShellRunner {
  const idle: Shell[] = [];
  let started = 0;
  let closed = false;
  /** No shell could be started (no /bin/sh, no processes left): Node's spawn from then on. */
  let unusable = false;

  function startShell(): Shell | undefined {
    const id = started++;
    // Its own process group: a program past its bound is killed with everything it started that stayed in the group.
    const child = spawn(shellPath, [], { env: {}, cwd: "/", detached: true, stdio: ["pipe", "pipe", "ignore"] });
    child.on("error", () => undefined); // a shell that could not start (no pid, below) or ended: reported by `close`
    if (child.pid === undefined) {
      unusable = true;
      return undefined;
    }
    const shell: Shell = {
      child,
      files: { input: join(workDir, `${id}.in`), out: join(workDir, `${id}.out`), err: join(workDir, `${id}.err`) },
    };
    let pending = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      const newline = pending.indexOf("\n");
      if (newline < 0) return;
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      shell.onStatus?.(line);
    });
    child.stdin.on("error", () => undefined); // a shell that ended: reported by `close`
    child.on("close", () => {
      shell.onStatus?.(undefined);
      const at = idle.indexOf(shell);
      if (at >= 0) idle.splice(at, 1);
      for (const file of Object.values(shell.files)) rmSync(file, { force: true });
    });
    return shell;
  }

  /** A shell ready for a program: its files new (a process an earlier program left writes to the old ones). */
  function shellFor(input: string | undefined): Shell | undefined {
    const shell = idle.pop() ?? startShell();
    if (!shell) return undefined;
    try {
      mkdirSync(workDir, { recursive: true, mode: 0o700 });
      for (const file of Object.values(shell.files)) unlinkAbsent(file);
      if (input !== undefined) writeFileSync(shell.files.input, input, { flag: "wx", mode: 0o600 });
      return shell;
    } catch {
      shell.child.stdin.end();
      return undefined;
    }
  }

  const runInShell: Runner = (file, args, options = {}) => {
    const { env = process.env, timeoutMs = DEFAULT_TIMEOUT_MS, input, killSignal = "SIGTERM" } = options;
    const elsewhere = () =>
      run(file, args, { env, timeoutMs, input, killSignal, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
    const names = Object.keys(env).filter((name) => env[name] !== undefined);
    const faithful =
      !closed &&
      !unusable &&
      names.every((name) => EXPORTABLE.test(name) && !READ_ONLY_IN_BASH.has(name)) &&
      ![file, ...args, ...names.map((name) => env[name] as string), input ?? ""].some((text) => text.includes("\0"));
    if (!faithful) return elsewhere();
    const program = resolveProgram(file, env);
    if (program === undefined) return Promise.resolve(notFound(file));
    let cwd: string;
    try {
      cwd = options.cwd ?? process.cwd();
    } catch {
      return elsewhere(); // a deleted working directory, which Node's spawn still starts a program in
    }
    const shell = shellFor(input);
    if (!shell) return elsewhere();
    const { files } = shell;
    const exports = names.map((name) => `${name}=${env[name] as string}`).map(shellQuote);
    const unset = SHELL_SET.filter((name) => !names.includes(name));
    // `cd` first (a directory the shell cannot enter: nothing ran, Node's spawn runs it); then exactly this environment.
    const script =
      `if cd -- ${shellQuote(cwd)} 2>/dev/null; then ( ${unset.length > 0 ? `unset ${unset.join(" ")}; ` : ""}` +
      `${exports.length > 0 ? `export ${exports.join(" ")}; ` : ""}exec ${[program, ...args].map(shellQuote).join(" ")} ) ` +
      `<${shellQuote(input === undefined ? "/dev/null" : files.input)} >${shellQuote(files.out)} 2>${shellQuote(files.err)}; echo "ran $?"; ` +
      `else echo nocwd; fi\n`;
    return new Promise<RunResult>((resolve) => {
      let timedOut = false;
      const timer =
        timeoutMs === Infinity
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              killGroup(shell, killSignal);
              if (killSignal !== "SIGKILL") setTimeout(() => killGroup(shell, "SIGKILL"), KILL_AFTER_MS).unref();
            }, timeoutMs);
      shell.onStatus = (line) => {
        shell.onStatus = undefined;
        clearTimeout(timer);
        const output = { stdout: readOutput(files.out), stderr: readOutput(files.err) };
        // A program past its bound took its shell with it: the shell is not reused.
        if (line !== undefined && !timedOut && !closed && idle.length < IDLE_SHELLS) idle.push(shell);
        else shell.child.stdin.end();
        if (timedOut) return resolve({ ok: false, code: undefined, ...output, ...failureOf(undefined, timeoutMs) });
        if (line === "nocwd") return void elsewhere().then(resolve);
        const status = line === undefined ? undefined : Number(line.slice("ran ".length));
        if (status === undefined || !Number.isInteger(status))
          return resolve({ ok: false, code: undefined, ...output, failure: "error", detail: "the shell that ran it ended" });
        resolve({ ok: status === 0, code: endedBySignal(status) ? undefined : status, ...output });
      };
      shell.child.stdin.write(script);
    });
  };

  return {
    run: runInShell,
    close() {
      closed = true;
      for (const shell of idle.splice(0)) shell.child.stdin.end();
    },
  };
}

/** As Node's spawn reports a program it cannot find: its exit code is the negated ENOENT. */
function notFound(file: string): RunResult {
  return { ok: false, code: -2, stdout: "", stderr: "", failure: "not-found", detail: `${file} not found` };
}

function killGroup(shell: Shell, signal: NodeJS.Signals): void {
  try {
    if (shell.child.pid !== undefined) process.kill(-shell.child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Remove `path` if it is there. */
function unlinkAbsent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** What the program wrote to `path`, up to MAX_OUTPUT_BYTES (as `run` keeps). */
function readOutput(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, MAX_OUTPUT_BYTES));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return stripFinalNewline(buffer.subarray(0, read).toString("utf8"));
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
