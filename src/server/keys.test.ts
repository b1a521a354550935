// The shell client (bin/tongs-agents-key.sh) against the keypress server in this process, under the real shells: a
// verb gets exactly the client's arguments, environment and directory (read from /proc), its output and exit code come
// back as they were printed, and everything the client cannot have served goes to the Node client (a recording
// stand-in for `node` here), never run twice and never hanging.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serverDirOf } from "./protocol.ts";
import { startServer, type RunVerb, type StartOutcome } from "./server.ts";

// Debian's /bin/sh, and bash as /bin/sh is elsewhere (Fedora, Arch): POSIX mode.
const SHELLS = ["dash", "bash --posix"];
const BUILD = "build-k";

let root: string;
let stateDir: string;
let install: string;
let fakeNode: string;
const stops: (() => Promise<unknown>)[] = [];
const here = process.cwd();
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "tongs-keys-")));
  stateDir = join(root, "state");
  // An install of our own: the shell client beside a bin/tongs-agents.js, its build in dist/build.
  mkdirSync(join(root, "install", "bin"), { recursive: true });
  mkdirSync(join(root, "install", "dist"));
  copyFileSync(join(here, "bin", "tongs-agents-key.sh"), join(root, "install", "bin", "tongs-agents-key.sh"));
  writeFileSync(join(root, "install", "bin", "tongs-agents.js"), "");
  writeFileSync(join(root, "install", "dist", "build"), `${BUILD}\n`);
  install = join(root, "install", "bin", "tongs-agents.js");
  // `node` as the client hands a verb to it: it says so, with what it was given.
  fakeNode = join(root, "fake-node");
  writeFileSync(fakeNode, `#!/bin/sh\nprintf 'node client:'\nprintf ' [%s]' "$@"\nprintf '\\n'\nexit 7\n`);
  chmodSync(fakeNode, 0o755);
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  process.chdir(here);
  rmSync(root, { recursive: true, force: true });
});

async function serve(run: RunVerb, build = BUILD): Promise<Extract<StartOutcome, { kind: "serving" }>> {
  const outcome = await startServer({ stateDir, build, install, run, log: () => undefined });
  if (outcome.kind !== "serving") throw new Error(`not serving: ${JSON.stringify(outcome)}`);
  stops.push(async () => {
    outcome.stop("test over");
    await outcome.stopped;
  });
  return outcome;
}

interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
  readonly ms: number;
}

function key(argv: string[], options: { shell?: string; env?: Record<string, string>; cwd?: string } = {}): Promise<Ran> {
  const started = Date.now();
  const [shell = "sh", ...flags] = (options.shell ?? "sh").split(" ");
  const child = spawn(shell, [...flags, join(root, "install", "bin", "tongs-agents-key.sh"), fakeNode, ...argv], {
    cwd: options.cwd ?? root,
    env: options.env ?? clientEnv(),
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err, ms: Date.now() - started })));
}

function clientEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, TONGS_AGENTS_STATE_DIR: stateDir, ...extra };
}

/** What is left in the server dir besides the server's own files. */
const leftovers = () => readdirSync(serverDirOf(stateDir)).filter((name) => name.startsWith("reply."));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(SHELLS)("the shell client under %s", (shell) => {
  it("gives the verb exactly its arguments, environment and directory, and prints what the verb printed", async () => {
    const seen: { argv: readonly string[]; env: NodeJS.ProcessEnv; cwd: string }[] = [];
    await serve(async (argv, env, io) => {
      seen.push({ argv, env: { ...env }, cwd: process.cwd() });
      io.stdout("first line\n\n  indented, trailing  ");
      io.stderr("an error: 100% \\n not a newline");
      io.stdout("x7 looks like an exit; r looks like ready");
      return 4;
    });
    const cwd = join(root, "a dir with 'quotes'");
    mkdirSync(cwd);
    const argv = ["show", 'it\'s a "test"', "two\nlines", "naïve ✓", "", "-x", "%s\\t"];
    const env = clientEnv({ EMPTY: "", "WITH=EQUALS": "ignored?", MULTI: "a\nb", UNICODE: "ü" });
    delete (env as Record<string, string>)["WITH=EQUALS"];
    const ran = await key(argv, { shell, env, cwd });
    expect(ran).toMatchObject({
      code: 4,
      out: "first line\n\n  indented, trailing  \nx7 looks like an exit; r looks like ready\n",
      err: "an error: 100% \\n not a newline\n",
    });
    expect(seen).toEqual([{ argv, env, cwd }]);
    expect(leftovers()).toEqual([]);
  });

  it("hands the verb to the Node client when there is no server, one that is gone, or one of another build", async () => {
    const none = await key(["status", "--format", "tmux"], { shell });
    expect(none).toMatchObject({ code: 7, out: `node client: [${install}] [status] [--format] [tmux]\n` });

    let runs = 0;
    await serve(async () => (runs++, 0), "build-other");
    const other = await key(["next"], { shell });
    expect(other).toMatchObject({ code: 7, out: `node client: [${install}] [next]\n` });
    expect(runs).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it("hands unserved verbs, TONGS_AGENTS_SERVER=off and no verb at all to the Node client", async () => {
    let runs = 0;
    await serve(async () => (runs++, 0));
    for (const [argv, env] of [
      [["pick"], clientEnv()],
      [["install", "--dry-run"], clientEnv()],
      [[], clientEnv()],
      [["list"], clientEnv({ TONGS_AGENTS_SERVER: "off" })],
    ] as const) {
      const ran = await key([...argv], { shell, env });
      expect(ran).toMatchObject({ code: 7, out: `node client: [${install}]${argv.map((word) => ` [${word}]`).join("")}\n` });
    }
    expect(runs).toBe(0);
  });

  it("falls back within its bound when the server is busy past it, and the server never runs that verb", async () => {
    const ran: string[] = [];
    let release = () => {};
    await serve(async (argv) => {
      ran.push(argv.join(" "));
      if (argv[1] === "slow") await new Promise<void>((resolve) => (release = resolve));
      return 0;
    });
    const slow = key(["show", "slow"], { shell });
    await sleep(300);
    const waiting = await key(["show", "queued"], { shell });
    expect(waiting).toMatchObject({ code: 7, out: `node client: [${install}] [show] [queued]\n` });
    expect(waiting.ms).toBeGreaterThanOrEqual(1900);
    expect(waiting.ms).toBeLessThan(5000);
    release();
    expect(await slow).toMatchObject({ code: 0 });
    await sleep(300);
    expect(ran).toEqual(["show slow"]);
    expect(leftovers()).toEqual([]);
  });
});

describe("the shell client and a server that cannot answer", () => {
  it("a server killed with its FIFO left behind: the Node client at once", async () => {
    const server = spawn("sleep", ["30"]);
    mkdirSync(serverDirOf(stateDir), { recursive: true, mode: 0o700 });
    spawnSync("mkfifo", [join(serverDirOf(stateDir), `keys.${server.pid}`)]);
    server.kill("SIGKILL");
    await new Promise((resolve) => server.on("exit", resolve));
    const ran = await key(["next"]);
    expect(ran).toMatchObject({ code: 7, out: `node client: [${install}] [next]\n` });
    expect(ran.ms).toBeLessThan(1500);
  });

  it("a live process that never reads the FIFO: the Node client after the 2 s bound, nothing left behind", async () => {
    const server = spawn("sleep", ["30"]);
    try {
      mkdirSync(serverDirOf(stateDir), { recursive: true, mode: 0o700 });
      spawnSync("mkfifo", [join(serverDirOf(stateDir), `keys.${server.pid}`)]);
      const ran = await key(["next"]);
      expect(ran).toMatchObject({ code: 7, out: `node client: [${install}] [next]\n` });
      expect(ran.ms).toBeGreaterThanOrEqual(1900);
      expect(leftovers()).toEqual([]);
    } finally {
      server.kill();
    }
  });

  it("refuses a request from a process that is not this install's client, and runs nothing", async () => {
    let runs = 0;
    await serve(async () => (runs++, 0));
    const dir = serverDirOf(stateDir);
    const fifo = readdirSync(dir).find((name) => name.startsWith("keys."));
    // A shell that asks as the client does, from another script: its own PID, one argument, the right build.
    const impostor = join(root, "impostor.sh");
    writeFileSync(
      impostor,
      `mkfifo "${dir}/reply.$$"; exec 3<>"${dir}/reply.$$" 4<"${dir}/reply.$$"; printf '%s 1 ${BUILD}\\n' $$ 1<>"${dir}/${fifo}"; IFS= read -r line <&4; printf '%s\\n' "$line"`,
    );
    // Not spawnSync: the server answers from this process.
    const answer = await new Promise<string>((resolve) => {
      const child = spawn("sh", [impostor, "show"]);
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      child.on("close", () => resolve(out));
    });
    expect(answer).toBe("frequest\n");
    expect(runs).toBe(0);
  });
});
