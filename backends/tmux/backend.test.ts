import { describe, expect, it } from "vitest";
import type { RunOptions, RunResult, Runner } from "../../src/core/exec.ts";
import { done, failed, type FocusContext } from "../contract.ts";
import { parseTmuxEnv } from "./runner.ts";
import { chooseClient, parseClients, tmuxBackend } from "./backend.ts";

const SOCKET = "/tmp/tmux-0/work";
const ok = (stdout = ""): RunResult => ({ ok: true, code: 0, stdout, stderr: "" });
const err = (stderr: string): RunResult => ({ ok: false, code: 1, stdout: "", stderr });

/**
 * A recording tmux (called as `tmux -u -S <socket> ...`): remembers every argv; answers each command of a `;` sequence by its subcommand, printing their
 * output in order and, as tmux does, running none of the rest once one fails.
 */
function fakeTmux(answers: Record<string, RunResult | ((args: readonly string[]) => RunResult)>) {
  const calls: string[][] = [];
  const run: Runner = async (file, args, _options?: RunOptions) => {
    calls.push([file, ...args]);
    const commands = args.slice(3).reduce<string[][]>((list, arg) => (arg === ";" ? [...list, []] : (list.at(-1)?.push(arg), list)), [[]]);
    let stdout = "";
    for (const command of commands) {
      const answer = answers[command[0] as string] ?? ok();
      const result = typeof answer === "function" ? answer(command) : answer;
      if (!result.ok) return { ...result, stdout };
      stdout += result.stdout && !result.stdout.endsWith("\n") ? `${result.stdout}\n` : result.stdout;
    }
    return ok(stdout);
  };
  return { run, calls };
}

function context(run: Runner, extra: Partial<FocusContext> = {}): FocusContext {
  return {
    run,
    env: {},
    client: undefined,
    platform: "linux",
    environOf: async () => ({ KITTY_WINDOW_ID: "1" }),
    raiseOuter: async () => done("raised the kitty OS window"),
    ...extra,
  };
}

/** Each output row carries the tag the backend put at the front of its format (the format's first field). */
const tagged = (format: string | undefined, text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((line) => `${format?.split("\t")[0]}\t${line}`)
    .join("\n");
const display = (args: readonly string[]) => ok(tagged(args.at(-1), args.at(-1)?.includes("pane_active") ? "110" : "$2\twork\t1"));
/** list-clients answers: the client table before the switch, the pane each client shows after. */
const clientsShowing = (table: string, panes: string) => (args: readonly string[]) =>
  ok(tagged(args.at(-1), args.at(-1)?.includes("#{pane_id}") && !args.at(-1)?.includes("client_pid") ? panes : table));

describe("parsing", () => {
  it("takes the socket from TMUX and the caller's session id from its third field", () => {
    expect(parseTmuxEnv("/tmp/tmux-1000/default,4769,3")).toEqual({ socket: "/tmp/tmux-1000/default", sessionId: "$3" });
    expect(parseTmuxEnv("/tmp/my socket,dir/s,1,0")?.socket).toBe("/tmp/my socket");
    expect(parseTmuxEnv("relative,1,0")).toBeUndefined();
    expect(parseTmuxEnv(undefined)).toBeUndefined();
  });

  it("detects only a tmux pane id", () => {
    expect(tmuxBackend.detect({ env: { TMUX: `${SOCKET},1,0`, TMUX_PANE: "%12" } })).toEqual({ socket: SOCKET, pane: "%12" });
    expect(tmuxBackend.detect({ env: { TMUX: `${SOCKET},1,0` } })).toBeUndefined(); // a popup: no pane
    expect(tmuxBackend.detect({ env: { TMUX: `${SOCKET},1,0`, TMUX_PANE: "work:1.2" } })).toBeUndefined();
  });

  it("parses list-clients rows", () => {
    expect(parseClients("/dev/pts/3\t$1\t100\t55\n/dev/pts/4\t$2\t200\t66\n")).toEqual([
      { tty: "/dev/pts/3", sessionId: "$1", activity: 100, pid: 55 },
      { tty: "/dev/pts/4", sessionId: "$2", activity: 200, pid: 66 },
    ]);
  });
});

describe("chooseClient", () => {
  const list = parseClients(
    ["/dev/pts/1\t$1\t300\t11", "/dev/pts/2\t$2\t100\t22", "/dev/pts/3\t$2\t200\t33", "/dev/pts/4\t$3\t400\t44"].join("\n"),
  );
  it.each([
    ["--client wins (a popup passes #{client_tty})", { client: "/dev/pts/2", env: {} }, "/dev/pts/2", true],
    ["else the client of the caller's own session", { client: undefined, env: { TMUX: `${SOCKET},9,1` } }, "/dev/pts/1", true],
    ["the caller's session on another server does not count", { client: undefined, env: { TMUX: "/tmp/other,9,1" } }, "/dev/pts/3", false],
    ["else the most recent client already on the target's session", { client: undefined, env: {} }, "/dev/pts/3", false],
    ["an unknown --client falls through", { client: "/dev/pts/99", env: {} }, "/dev/pts/3", false],
  ] as const)("%s", (_name, ctx, tty, pinned) => {
    expect(chooseClient(list, "$2", SOCKET, ctx)).toMatchObject({ client: { tty }, pinned });
  });

  it("else the most recently active client anywhere, and nothing when none is attached", () => {
    expect(chooseClient(list, "$9", SOCKET, { client: undefined, env: {} })).toMatchObject({
      client: { tty: "/dev/pts/4" },
      pinned: false,
    });
    expect(chooseClient([], "$2", SOCKET, { client: undefined, env: {} })).toBeUndefined();
  });
});

describe("tmuxBackend.focus", () => {
  const target = { socket: SOCKET, pane: "%7" };

  it("with --client: locates, switches session, window and pane pinned with -c, and verifies, in one tmux call", async () => {
    const tmux = fakeTmux({ "list-clients": clientsShowing("/dev/pts/5\t$2\t10\t99", "/dev/pts/5\t%7"), "display-message": display });
    const outcome = await tmuxBackend.focus(target, context(tmux.run, { client: "/dev/pts/5" }));
    expect(tmux.calls).toEqual([
      [
        "tmux",
        "-u",
        "-S",
        SOCKET,
        "has-session",
        "-t",
        "%7",
        ";",
        "display-message",
        "-p",
        "-t",
        "%7",
        "pane\t#{session_id}\t#{session_name}\t#{window_index}",
        ";",
        "switch-client",
        "-c",
        "/dev/pts/5",
        "-t",
        "%7",
        ";",
        "select-window",
        "-t",
        "%7",
        ";",
        "select-pane",
        "-t",
        "%7",
        ";",
        "display-message",
        "-p",
        "-t",
        "%7",
        "active\t#{pane_active}#{window_active}#{window_zoomed_flag}",
        ";",
        "list-clients",
        "-F",
        "shows\t#{client_tty}\t#{pane_id}",
      ],
    ]);
    expect(outcome).toEqual({
      located: true,
      target: `tmux pane %7 (${SOCKET}), session work window 1`,
      selection: done("selected %7 in session work window 1"),
      activation: done("the client that asked (/dev/pts/5) shows %7"),
    });
  });

  it("a --client not attached to the target's server: the client is chosen from the table, in three calls", async () => {
    const tmux = fakeTmux({
      "list-clients": clientsShowing("/dev/pts/6\t$2\t10\t99", "/dev/pts/6\t%7"),
      "display-message": display,
      "switch-client": (args) => (args.includes("/dev/pts/5") ? err("can't find client: /dev/pts/5") : ok()),
    });
    const outcome = await tmuxBackend.focus(target, context(tmux.run, { client: "/dev/pts/5" }));
    expect(tmux.calls.map((call) => call.filter((arg) => arg.startsWith("/dev/")))).toEqual([["/dev/pts/5"], [], ["/dev/pts/6"], []]);
    expect(outcome).toMatchObject({ located: true, selection: { succeeded: true }, activation: { succeeded: true } });
    expect(outcome.activation.detail).toContain("a client already on the target's session (/dev/pts/6) shows %7");
  });

  it("without --client: locate, act and verify are three calls", async () => {
    const tmux = fakeTmux({ "list-clients": clientsShowing("/dev/pts/5\t$2\t10\t99", "/dev/pts/5\t%7"), "display-message": display });
    const outcome = await tmuxBackend.focus(target, context(tmux.run, { env: { TMUX: `${SOCKET},9,2` } }));
    expect(tmux.calls).toEqual([
      [
        "tmux",
        "-u",
        "-S",
        SOCKET,
        "has-session",
        "-t",
        "%7",
        ";",
        "display-message",
        "-p",
        "-t",
        "%7",
        "pane\t#{session_id}\t#{session_name}\t#{window_index}",
        ";",
        "list-clients",
        "-F",
        "client\t#{client_tty}\t#{session_id}\t#{client_activity}\t#{client_pid}",
      ],
      [
        "tmux",
        "-u",
        "-S",
        SOCKET,
        "switch-client",
        "-c",
        "/dev/pts/5",
        "-t",
        "%7",
        ";",
        "select-window",
        "-t",
        "%7",
        ";",
        "select-pane",
        "-t",
        "%7",
      ],
      [
        "tmux",
        "-u",
        "-S",
        SOCKET,
        "display-message",
        "-p",
        "-t",
        "%7",
        "pane\t#{pane_active}#{window_active}#{window_zoomed_flag}",
        ";",
        "list-clients",
        "-F",
        "client\t#{client_tty}\t#{pane_id}",
      ],
    ]);
    expect(outcome).toMatchObject({ located: true, selection: { succeeded: true }, activation: { succeeded: true } });
  });

  it("with no client attached: selection only, activation reported as not possible", async () => {
    const tmux = fakeTmux({ "list-clients": ok(""), "display-message": display });
    const outcome = await tmuxBackend.focus(target, context(tmux.run));
    expect(tmux.calls.flat()).not.toContain("switch-client");
    expect(tmux.calls).toContainEqual(["tmux", "-u", "-S", SOCKET, "select-window", "-t", "%7", ";", "select-pane", "-t", "%7"]);
    expect(outcome).toMatchObject({ selection: { succeeded: true }, activation: { attempted: false, succeeded: false } });
    expect(outcome.activation.detail).toContain("no tmux client is attached");
  });

  it("an unpinned client needs its outer terminal window raised to count as activation", async () => {
    const tmux = fakeTmux({ "list-clients": clientsShowing("/dev/pts/5\t$2\t10\t99", "/dev/pts/5\t%7"), "display-message": display });
    const raisedFor: Record<string, string>[] = [];
    const raised = await tmuxBackend.focus(
      target,
      context(tmux.run, { raiseOuter: async (env) => (raisedFor.push(env), done("raised kitty window 1")) }),
    );
    expect(raisedFor).toEqual([{ KITTY_WINDOW_ID: "1" }]);
    expect(raised.activation).toMatchObject({ succeeded: true, detail: expect.stringContaining("raised kitty window 1") });
    const notRaised = await tmuxBackend.focus(target, context(tmux.run, { raiseOuter: async () => failed("unknown terminal") }));
    expect(notRaised).toMatchObject({ selection: { succeeded: true }, activation: { attempted: true, succeeded: false } });
  });

  it("a client that does not show the pane afterwards is a failed activation, not a success", async () => {
    const tmux = fakeTmux({
      "list-clients": clientsShowing("/dev/pts/5\t$2\t10\t99", "/dev/pts/4\t%7\n/dev/pts/5\t%3"),
      "display-message": display,
    });
    const outcome = await tmuxBackend.focus(target, context(tmux.run, { client: "/dev/pts/5" }));
    expect(outcome.activation).toMatchObject({ succeeded: false, detail: "client /dev/pts/5 shows %3, not %7" });
  });

  it("a pane that is not active after the switch is a failed selection, with what tmux said", async () => {
    const notActive = (args: readonly string[]) => ok(tagged(args.at(-1), args.at(-1)?.includes("pane_active") ? "010" : "$2\twork\t1"));
    const tmux = fakeTmux({ "list-clients": clientsShowing("/dev/pts/5\t$2\t10\t99", "/dev/pts/5\t%7"), "display-message": notActive });
    const outcome = await tmuxBackend.focus(target, context(tmux.run, { client: "/dev/pts/5" }));
    expect(outcome.selection).toMatchObject({
      succeeded: false,
      detail: "after switching, %7 is not the active pane of its session (tmux says 010)",
    });
  });

  it.each([undefined, "/dev/pts/5"])(
    "a pane that no longer exists, and a server that is gone, are reported as such (--client %s)",
    async (client) => {
      const gonePane = fakeTmux({ "has-session": err("can't find pane: %7") });
      const stale = await tmuxBackend.focus(target, context(gonePane.run, { client }));
      expect(stale).toMatchObject({ located: false, selection: { succeeded: false, detail: `pane %7 no longer exists on ${SOCKET}` } });
      expect(gonePane.calls).toHaveLength(1);
      const dead = await tmuxBackend.focus(
        target,
        context(fakeTmux({ "has-session": err(`no server running on ${SOCKET}`) }).run, { client }),
      );
      expect(dead.selection.detail).toContain("is gone");
    },
  );
});
