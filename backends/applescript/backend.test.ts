import { describe, expect, it } from "vitest";
import type { RunOptions, RunResult, Runner } from "../../src/core/exec.ts";
import type { FocusContext } from "../contract.ts";
import { applescriptBackend, detectAppleScript, parseITermSessionId } from "./backend.ts";
import { ITERM_FOCUS, ITERM_VERIFY, TERMINAL_ACTIVATE, TERMINAL_FOCUS, TERMINAL_STATE, TERMINAL_VERIFY } from "./scripts.ts";

const UUID = "5E1C5C89-1B2A-4F3D-9C8E-0A1B2C3D4E5F";
const TTY = "/dev/ttys004";
const ok = (stdout = ""): RunResult => ({ ok: true, code: 0, stdout, stderr: "" });
const err = (stderr: string): RunResult => ({ ok: false, code: 1, stdout: "", stderr });
const denied = (app: string) => err(`142:198: execution error: Not authorized to send Apple events to ${app}. (-1743)`);

/** A recording osascript: answers by the script's name line, remembers every argv. */
function fakeOsascript(answers: Record<string, RunResult>) {
  const calls: string[][] = [];
  const run: Runner = async (file, args, _options?: RunOptions) => {
    calls.push([file, ...args]);
    const name = /^-- tongs-agents (\S+)/.exec(args[1] ?? "")?.[1] ?? "";
    return answers[name] ?? err(`no answer for ${name}`);
  };
  return { run, calls };
}

function context(run: Runner): FocusContext {
  return {
    run,
    env: {},
    client: undefined,
    platform: "darwin",
    environOf: async () => undefined,
    raiseOuter: async () => ({ attempted: false, succeeded: false, detail: "" }),
  };
}

describe("detection (macOS-captured targets only)", () => {
  it.each([
    [
      "iTerm2 session id: only the UUID is kept",
      { env: { ITERM_SESSION_ID: `w0t1p0:${UUID}`, TERM_PROGRAM: "iTerm.app" } },
      { app: "iterm2", session: UUID },
    ],
    ["lower-case UUID", { env: { ITERM_SESSION_ID: `w2t0p3:${UUID.toLowerCase()}` } }, { app: "iterm2", session: UUID }],
    ["iTerm2 without a session id", { env: { TERM_PROGRAM: "iTerm.app" } }, undefined],
    ["a malformed session id", { env: { ITERM_SESSION_ID: `w0t1p0:${UUID}" & do shell script "x` } }, undefined],
    ["Terminal.app with its tty", { env: { TERM_PROGRAM: "Apple_Terminal" }, tty: TTY }, { app: "terminal", tty: TTY }],
    ["Terminal.app without a recorded tty", { env: { TERM_PROGRAM: "Apple_Terminal" } }, undefined],
    ["Terminal.app with a Linux tty", { env: { TERM_PROGRAM: "Apple_Terminal" }, tty: "/dev/pts/4" }, undefined],
    ["a tty that is not a plain device path", { env: { TERM_PROGRAM: "Apple_Terminal" }, tty: '/dev/ttys004" or true' }, undefined],
    ["another terminal", { env: { TERM_PROGRAM: "WezTerm" }, tty: TTY }, undefined],
  ] as const)("%s", (_name, terminal, expected) => {
    expect(detectAppleScript({ ...terminal, env: { ...terminal.env } })).toEqual(expected);
  });

  it("parses ITERM_SESSION_ID", () => {
    expect(parseITermSessionId(`w0t0p0:${UUID}`)).toBe(UUID);
    expect(parseITermSessionId(UUID)).toBeUndefined();
    expect(parseITermSessionId(undefined)).toBeUndefined();
  });
});

describe("scripts", () => {
  it("compare ids exactly and take them from argv, never from the script text", () => {
    for (const script of [TERMINAL_FOCUS, TERMINAL_VERIFY]) {
      expect(script).toContain("set targetTty to item 1 of argv");
      expect(script).toContain("if tty of t is targetTty then");
      expect(script).not.toMatch(/contains/);
    }
    for (const script of [ITERM_FOCUS, ITERM_VERIFY]) expect(script).toContain("set targetId to item 1 of argv");
    // Never launch an app that is not running: `tell application` would start it.
    for (const script of [TERMINAL_FOCUS, TERMINAL_VERIFY, TERMINAL_ACTIVATE, TERMINAL_STATE, ITERM_FOCUS, ITERM_VERIFY])
      expect(script).toMatch(/if not \(running of application id "[\w.]+"\) then return "not-running"/);
  });
});

describe("Terminal.app focus", () => {
  const target = { app: "terminal", tty: TTY } as const;

  it("runs the focus script then the verify script, the tty as their only argument", async () => {
    const fake = fakeOsascript({ "terminal-focus": ok("ok"), "terminal-verify": ok(`true\t${TTY}\ttrue`) });
    const outcome = await applescriptBackend.focus(target, context(fake.run));
    expect(fake.calls).toEqual([
      ["osascript", "-e", TERMINAL_FOCUS, TTY],
      ["osascript", "-e", TERMINAL_VERIFY, TTY],
    ]);
    expect(outcome).toEqual({
      located: true,
      target: `Terminal.app tab ${TTY}`,
      selection: { attempted: true, succeeded: true, detail: `selected the Terminal.app tab on ${TTY} in its window` },
      activation: { attempted: true, succeeded: true, detail: `Terminal is in front showing the Terminal.app tab on ${TTY}` },
    });
  });

  it("selection only: the tab is selected and its window in front, but macOS kept another app in front", async () => {
    const outcome = await applescriptBackend.focus(
      target,
      context(fakeOsascript({ "terminal-focus": ok("ok"), "terminal-verify": ok(`true\t${TTY}\tfalse`) }).run),
    );
    expect(outcome).toMatchObject({
      selection: { succeeded: true },
      activation: { succeeded: false, detail: expect.stringContaining("did not come to the front") },
    });
  });

  it("selection only: another window is in front", async () => {
    const outcome = await applescriptBackend.focus(
      target,
      context(fakeOsascript({ "terminal-focus": ok("ok"), "terminal-verify": ok("true\t/dev/ttys009\ttrue") }).run),
    );
    expect(outcome.activation).toMatchObject({
      succeeded: false,
      detail: "the front Terminal window shows /dev/ttys009, not /dev/ttys004",
    });
  });

  it("activation only: reported as read back when the front window shows the tty but the tab reads as unselected", async () => {
    const outcome = await applescriptBackend.focus(
      target,
      context(fakeOsascript({ "terminal-focus": ok("ok"), "terminal-verify": ok(`false\t${TTY}\ttrue`) }).run),
    );
    expect(outcome).toMatchObject({ selection: { succeeded: false }, activation: { succeeded: true } });
  });

  it.each([
    ["the tab is gone", "missing", `the Terminal.app tab on ${TTY} no longer exists (closed?)`],
    [
      "Terminal.app is not running (never launched by focus)",
      "not-running",
      `Terminal is not running, so the Terminal.app tab on ${TTY} is gone`,
    ],
  ])("stale: %s", async (_name, answer, detail) => {
    const fake = fakeOsascript({ "terminal-focus": ok(answer) });
    const outcome = await applescriptBackend.focus(target, context(fake.run));
    expect(fake.calls).toHaveLength(1);
    expect(outcome).toMatchObject({ located: false, selection: { succeeded: false, detail }, activation: { attempted: false } });
  });

  it("Automation permission denied (-1743): unavailable, naming the System Settings pane", async () => {
    const outcome = await applescriptBackend.focus(target, context(fakeOsascript({ "terminal-focus": denied("Terminal") }).run));
    expect(outcome.unavailable).toBe(
      "macOS denied permission to control Terminal (error -1743): allow it in System Settings > Privacy & Security > Automation, under the app that runs tongs-agents (your terminal), then try again",
    );
  });

  it("no osascript (not macOS): unavailable", async () => {
    const outcome = await applescriptBackend.focus(
      target,
      context(fakeOsascript({ "terminal-focus": { ok: false, code: undefined, stdout: "", stderr: "", failure: "not-found" } }).run),
    );
    expect(outcome.unavailable).toContain("only on macOS");
  });

  it("any other osascript error is a failure with its message", async () => {
    const outcome = await applescriptBackend.focus(
      target,
      context(fakeOsascript({ "terminal-focus": err("0:5: syntax error: A unknown token can’t go here. (-2740)") }).run),
    );
    expect(outcome).toMatchObject({ located: false, selection: { succeeded: false, detail: expect.stringContaining("(-2740)") } });
    expect(outcome.unavailable).toBeUndefined();
  });
});

describe("iTerm2 focus", () => {
  const target = { app: "iterm2", session: UUID } as const;

  it("runs the focus and verify scripts with the session UUID as argument", async () => {
    const fake = fakeOsascript({ "iterm2-focus": ok("ok"), "iterm2-verify": ok(`true\t${UUID}\ttrue`) });
    const outcome = await applescriptBackend.focus(target, context(fake.run));
    expect(fake.calls).toEqual([
      ["osascript", "-e", ITERM_FOCUS, UUID],
      ["osascript", "-e", ITERM_VERIFY, UUID],
    ]);
    expect(outcome).toMatchObject({
      located: true,
      target: `iTerm2 session ${UUID}`,
      selection: { succeeded: true },
      activation: { succeeded: true },
    });
  });

  it("selection only, activation only, stale and denied", async () => {
    const focus = (verify: string) =>
      applescriptBackend.focus(target, context(fakeOsascript({ "iterm2-focus": ok("ok"), "iterm2-verify": ok(verify) }).run));
    expect(await focus(`true\tOTHER-ID\ttrue`)).toMatchObject({ selection: { succeeded: true }, activation: { succeeded: false } });
    expect(await focus(`false\t${UUID}\ttrue`)).toMatchObject({ selection: { succeeded: false }, activation: { succeeded: true } });
    expect(await applescriptBackend.focus(target, context(fakeOsascript({ "iterm2-focus": ok("missing") }).run))).toMatchObject({
      located: false,
      selection: { detail: `the iTerm2 session ${UUID} no longer exists (closed?)` },
    });
    expect((await applescriptBackend.focus(target, context(fakeOsascript({ "iterm2-focus": denied("iTerm") }).run))).unavailable).toContain(
      "control iTerm2 (error -1743)",
    );
  });
});

describe("applescriptBackend.raise", () => {
  it("iTerm2: focuses the session the tmux client runs in", async () => {
    const fake = fakeOsascript({ "iterm2-focus": ok("ok"), "iterm2-verify": ok(`true\t${UUID}\ttrue`) });
    expect(await applescriptBackend.raise({ ITERM_SESSION_ID: `w0t0p0:${UUID}` }, context(fake.run))).toMatchObject({ succeeded: true });
    expect(fake.calls[0]).toEqual(["osascript", "-e", ITERM_FOCUS, UUID]);
  });

  it("Terminal.app: the client's environment has no tty, so the app is raised and it counts only with a single tab", async () => {
    const one = fakeOsascript({ "terminal-activate": ok("ok"), "terminal-state": ok("true\t1") });
    expect(await applescriptBackend.raise({ TERM_PROGRAM: "Apple_Terminal" }, context(one.run))).toEqual({
      attempted: true,
      succeeded: true,
      detail: "brought Terminal.app (one tab) to the front",
    });
    expect(one.calls).toEqual([
      ["osascript", "-e", TERMINAL_ACTIVATE],
      ["osascript", "-e", TERMINAL_STATE],
    ]);
    const many = fakeOsascript({ "terminal-activate": ok("ok"), "terminal-state": ok("true\t3") });
    expect(await applescriptBackend.raise({ TERM_PROGRAM: "Apple_Terminal" }, context(many.run))).toMatchObject({
      succeeded: false,
      detail: expect.stringContaining("3 tabs"),
    });
  });

  it("answers nothing for other environments", async () => {
    expect(await applescriptBackend.raise({ TERM_PROGRAM: "WezTerm", WEZTERM_PANE: "1" }, context(fakeOsascript({}).run))).toBeUndefined();
  });
});
