import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunOptions, RunResult, Runner } from "../../src/core/exec.ts";
import { done, failed, type FocusContext } from "../contract.ts";
import { linuxScreenClients } from "./clients.ts";
import { makeScreenBackend, parseScreenEnv, screenBackend } from "./backend.ts";

const STY = "4242.work";
const target = { sty: STY, window: "2", serverPid: 4242 };
const ok = (stdout = ""): RunResult => ({ ok: true, code: 0, stdout, stderr: "" });
const err = (stdout: string, code = 1): RunResult => ({ ok: false, code, stdout, stderr: "" });

const attached = ok(`There is a screen on:\n\t${STY}\t(11/29/26 22:07:47)\t(Attached)\n1 Socket in /run/screen/S-u.\n`);

/** A recording screen: answers `-ls`, `-p N -Q number`, `-X select` and `-Q number`; remembers every argv. */
function fakeScreen(answers: { exists?: RunResult; select?: RunResult; number?: RunResult; ls?: RunResult }) {
  const calls: string[][] = [];
  const run: Runner = async (file, args, _options?: RunOptions) => {
    calls.push([file, ...args]);
    if (args[0] === "-ls") return answers.ls ?? attached;
    if (args[2] === "-p") return answers.exists ?? ok("2 (agent)");
    if (args[2] === "-X") return answers.select ?? ok();
    return answers.number ?? ok("2 (agent)");
  };
  return { run, calls };
}

function context(run: Runner, extra: Partial<FocusContext> = {}): FocusContext {
  return {
    run,
    env: {},
    client: undefined,
    platform: "linux",
    environOf: async () => ({ KITTY_WINDOW_ID: "3" }),
    raiseOuter: async () => done("raised kitty window 3"),
    ...extra,
  };
}

const withClients = (clients: { pid: number; tty: string }[] | undefined) => makeScreenBackend({ clientsOf: async () => clients });

describe("parseScreenEnv / detect", () => {
  it.each([
    ["a plain session", { STY: "4242.work", WINDOW: "2" }, { sty: "4242.work", window: "2", serverPid: 4242 }],
    [
      "the default name (pts and host)",
      { STY: "17216.pts-3.build-host", WINDOW: "0" },
      { sty: "17216.pts-3.build-host", window: "0", serverPid: 17216 },
    ],
    ["no WINDOW", { STY: "4242.work" }, undefined],
    ["a window that is not a number", { STY: "4242.work", WINDOW: "2; quit" }, undefined],
    ["$VARS in WINDOW (screen would expand them)", { STY: "4242.work", WINDOW: "$HOME" }, undefined],
    ["$VARS in STY", { STY: "4242.$USER", WINDOW: "1" }, undefined],
    ["spaces or quotes in STY", { STY: "4242.my work", WINDOW: "1" }, undefined],
    ["no server pid in STY", { STY: "work", WINDOW: "1" }, undefined],
  ] as const)("%s", (_name, env, expected) => {
    expect(parseScreenEnv(env)).toEqual(expected);
    expect(screenBackend.detect({ env: { ...env } })).toEqual(expected);
  });
});

describe("screenBackend.focus", () => {
  it("checks the window exists, selects it, verifies, then raises the attached client's terminal", async () => {
    const screen = fakeScreen({});
    const raisedFor: Record<string, string>[] = [];
    const outcome = await withClients([{ pid: 900, tty: "/dev/pts/7" }]).focus(
      target,
      context(screen.run, { raiseOuter: async (env) => (raisedFor.push(env), done("raised kitty window 3")) }),
    );
    // No query before the switch: screen shows -Q answers on the display, and one shown less than msgminwait (1 s)
    // before a switch delays the next answer by a second.
    expect(screen.calls).toEqual([
      ["screen", "-ls", STY],
      ["screen", "-S", STY, "-X", "select", "2"],
      ["screen", "-S", STY, "-Q", "number"],
    ]);
    expect(raisedFor).toEqual([{ KITTY_WINDOW_ID: "3" }]);
    expect(outcome).toMatchObject({
      located: true,
      selection: { succeeded: true },
      activation: { succeeded: true, detail: "screen client 900 on /dev/pts/7 shows window 2; raised kitty window 3" },
    });
  });

  it("finds its own line in screen -ls even when the name holds regex characters", async () => {
    const odd = { sty: "4242.a+b.c", window: "2", serverPid: 4242 };
    const run: Runner = async (_file, args) =>
      args[0] === "-ls"
        ? ok(`There are screens on:\n\t4242.aab.c\t(Detached)\n\t4242.a+b.c\t(Attached)\n`)
        : args[2] === "-Q"
          ? ok("2 (x)")
          : ok();
    expect(await withClients([]).focus(odd, context(run, { env: { STY: odd.sty } }))).toMatchObject({
      selection: { succeeded: true },
      activation: { succeeded: true },
    });
  });

  it("the caller inside the same session: its own display shows the window, nothing else to raise", async () => {
    const screen = fakeScreen({});
    const outcome = await withClients([]).focus(target, context(screen.run, { env: { STY } }));
    expect(outcome).toMatchObject({
      selection: { succeeded: true },
      activation: { succeeded: true, detail: expect.stringContaining("your own screen display") },
    });
  });

  it("selection only: the client shows the window but its terminal cannot be raised", async () => {
    const outcome = await withClients([{ pid: 900, tty: "/dev/pts/7" }]).focus(
      target,
      context(fakeScreen({}).run, { raiseOuter: async () => failed("not a terminal tongs-agents can raise") }),
    );
    expect(outcome).toMatchObject({ selection: { succeeded: true }, activation: { attempted: true, succeeded: false } });
  });

  it("selection only: no attached client process found, or a platform without /proc", async () => {
    expect((await withClients([]).focus(target, context(fakeScreen({}).run))).activation).toMatchObject({
      succeeded: false,
      detail: expect.stringContaining("no attached screen client"),
    });
    expect((await withClients(undefined).focus(target, context(fakeScreen({}).run, { platform: "darwin" }))).activation).toMatchObject({
      succeeded: false,
      detail: expect.stringContaining("Linux only"),
    });
  });

  it("a client started inside its own session is not raised through itself", async () => {
    const outcome = await withClients([{ pid: 900, tty: "/dev/pts/7" }]).focus(
      target,
      context(fakeScreen({}).run, {
        environOf: async () => ({ STY, WINDOW: "0" }),
        raiseOuter: async () => {
          throw new Error("must not recurse");
        },
      }),
    );
    expect(outcome.activation).toMatchObject({ succeeded: false, detail: expect.stringContaining("inside session") });
  });

  it("a window that no longer exists (select returned 0, the display did not move): not located", async () => {
    const screen = fakeScreen({ number: ok("0 (sh)"), exists: err("Could not find pre-select window.") });
    const outcome = await withClients([]).focus(target, context(screen.run));
    expect(screen.calls.at(-1)).toEqual(["screen", "-S", STY, "-p", "2", "-Q", "number"]);
    expect(outcome).toMatchObject({
      located: false,
      selection: { succeeded: false, detail: `window 2 no longer exists in screen session ${STY}` },
      activation: { attempted: false },
    });
  });

  it.each([
    ["no socket at all", err("No Sockets found in /run/screen/S-u.\n")],
    ["only a session whose name starts the same (-ls matches prefixes)", ok(`There is a screen on:\n\t${STY}x\t(Attached)\n`)],
  ])("a session that is gone: %s", async (_name, ls) => {
    const screen = fakeScreen({ ls });
    const outcome = await withClients([]).focus(target, context(screen.run));
    expect(screen.calls).toHaveLength(1);
    expect(outcome).toMatchObject({ located: false, selection: { detail: expect.stringContaining(`screen session ${STY} is gone`) } });
  });

  it("screen not installed: unavailable", async () => {
    const outcome = await withClients([]).focus(
      target,
      context(fakeScreen({ ls: { ok: false, code: undefined, stdout: "", stderr: "", failure: "not-found" } }).run),
    );
    expect(outcome.unavailable).toContain("not installed");
  });

  it.each(["(Detached)", "(Multi, detached)"])(
    "a detached session %s ignores select: failed, with the reason, and nothing sent",
    async (state) => {
      const screen = fakeScreen({ ls: ok(`There is a screen on:\n\t${STY}\t(11/29/26 22:07:47)\t${state}\n`) });
      const outcome = await withClients([]).focus(target, context(screen.run));
      expect(screen.calls).toEqual([
        ["screen", "-ls", STY],
        ["screen", "-S", STY, "-p", "2", "-Q", "number"],
      ]);
      expect(outcome).toMatchObject({
        located: true,
        selection: { succeeded: false, detail: expect.stringContaining("is detached") },
        activation: { attempted: false },
      });
    },
  );

  it("a detached session without that window: not located", async () => {
    const outcome = await withClients([]).focus(
      target,
      context(fakeScreen({ ls: ok(`\t${STY}\t(Detached)\n`), exists: err("Could not find pre-select window.") }).run),
    );
    expect(outcome).toMatchObject({ located: false, selection: { detail: `window 2 no longer exists in screen session ${STY}` } });
  });

  it("never claims activation without selection: a display still showing another window is a failed selection, nothing raised", async () => {
    const outcome = await withClients([{ pid: 900, tty: "/dev/pts/7" }]).focus(
      target,
      context(fakeScreen({ number: ok("0 (sh)") }).run, {
        raiseOuter: async () => {
          throw new Error("must not raise");
        },
      }),
    );
    expect(outcome.selection).toMatchObject({ succeeded: false, detail: "after select, screen shows window 0, not 2" });
    expect(outcome.activation.attempted).toBe(false);
  });
});

describe("screenBackend.raise", () => {
  it("is for environments of processes inside screen only, and reports both operations", async () => {
    const backend = withClients([{ pid: 900, tty: "/dev/pts/7" }]);
    expect(await backend.raise({ TMUX: "/tmp/t,1,0" }, context(fakeScreen({}).run))).toBeUndefined();
    expect(await backend.raise({ STY, WINDOW: "2" }, context(fakeScreen({}).run))).toMatchObject({ succeeded: true });
    expect(
      await backend.raise({ STY, WINDOW: "2" }, context(fakeScreen({ ls: err("No Sockets found in /run/screen/S-u.") }).run)),
    ).toMatchObject({ succeeded: false });
  });
});

describe("linuxScreenClients (a fake /proc)", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** tty_nr of /dev/pts/N: major 136, minor N. */
  const ptsNr = (n: number) => (136 << 8) | (n & 0xff) | ((n & ~0xff) << 12);
  function proc(pid: number, comm: string, ttyNr: number, fds: Record<string, string> = {}) {
    mkdirSync(join(root, String(pid), "fd"), { recursive: true });
    writeFileSync(
      join(root, String(pid), "stat"),
      `${pid} (${comm}) S 1 ${pid} ${pid} ${ttyNr} -1 4194560 ${"0 ".repeat(12)}20 0 1 0 12345 0 0`,
    );
    for (const [fd, link] of Object.entries(fds)) symlinkSync(link, join(root, String(pid), "fd", fd));
  }

  it("finds the screen processes on the ttys the server holds open, ignoring window ptys and other programs", async () => {
    root = mkdtempSync(join(tmpdir(), "fake-proc-"));
    proc(4242, "screen", 0, { "3": "socket:[1]", "4": "/dev/ptmx", "8": "/dev/pts/4", "9": "/dev/pts/300" });
    proc(900, "screen", ptsNr(4));
    proc(901, "bash", ptsNr(4));
    proc(902, "screen", ptsNr(5));
    proc(903, "screen", ptsNr(300));
    expect(await linuxScreenClients(4242, root)).toEqual([
      { pid: 900, tty: "/dev/pts/4" },
      { pid: 903, tty: "/dev/pts/300" },
    ]);
    expect(await linuxScreenClients(999, root)).toEqual([]);
  });
});

describe("SCREENDIR", () => {
  it("talks to the session in the agent's captured SCREENDIR, whatever the caller's is", async () => {
    expect(parseScreenEnv({ STY: STY, WINDOW: "2", SCREENDIR: "/tmp/agent-screens" })).toEqual({
      ...target,
      screendir: "/tmp/agent-screens",
    });
    expect(parseScreenEnv({ STY: STY, WINDOW: "2", SCREENDIR: "relative" })).toEqual(target);
    const seen: (string | undefined)[] = [];
    const run: Runner = async (_file, args, options) => {
      seen.push(options?.env?.SCREENDIR);
      return args[0] === "-ls" ? attached : args[2] === "-X" ? ok() : ok("2 (agent)");
    };
    await withClients([]).focus({ ...target, screendir: "/tmp/agent-screens" }, context(run, { env: { SCREENDIR: "/tmp/caller" } }));
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set(["/tmp/agent-screens"]));
  });
});
