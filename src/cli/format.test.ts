// show's human output: the terminal place in each terminal's own words, and aligned field names.
import { describe, expect, it } from "vitest";
import type { RunResult } from "../core/exec.ts";
import type { SessionView } from "../fleet/view.ts";
import { formatDetails, formatTerminalPlace } from "./format.ts";
import { tmuxPlaceOf } from "../../backends/tmux/place.ts";

const TMUX = { TMUX: "/tmp/tmux-1000/default,4242,0", TMUX_PANE: "%7", TERM_PROGRAM: "tmux" };

describe("the terminal place", () => {
  it.each([
    ["tmux with its live name", { env: TMUX }, "work:2.1", "tmux work:2.1 (pane %7, server /tmp/tmux-1000/default)"],
    ["tmux whose server cannot say", { env: TMUX }, undefined, "tmux pane %7, server /tmp/tmux-1000/default"],
    [
      "tmux inside kitty",
      { env: { ...TMUX, KITTY_WINDOW_ID: "3", WINDOWID: "41943047", DISPLAY: ":0" } },
      "w:0.0",
      "tmux w:0.0 (pane %7, server /tmp/tmux-1000/default) in kitty window 3",
    ],
    ["GNU screen", { env: { STY: "1234.pts-0.host", WINDOW: "2" } }, undefined, "GNU screen session 1234.pts-0.host window 2"],
    ["WezTerm", { env: { WEZTERM_PANE: "5", WEZTERM_UNIX_SOCKET: "/run/w" } }, undefined, "WezTerm pane 5"],
    ["iTerm2", { env: { ITERM_SESSION_ID: "w0t1p0:ABC", TERM_PROGRAM: "iTerm.app" } }, undefined, "iTerm2 session w0t1p0:ABC"],
    [
      "Terminal.app",
      { env: { TERM_PROGRAM: "Apple_Terminal", TERM_SESSION_ID: "X" }, tty: "/dev/ttys003" },
      undefined,
      "Terminal.app tab /dev/ttys003",
    ],
    ["a plain X11 terminal", { env: { WINDOWID: "41943047", DISPLAY: ":1" } }, undefined, "X11 window 0x2800007 on :1"],
    ["nothing captured", { env: {} }, undefined, ""],
  ] as const)("%s", (_name, terminal, live, expected) => {
    expect(formatTerminalPlace(terminal as SessionView["terminal"], live)).toBe(expected);
  });

  it("asks the pane's own server for session:window.pane, and gives up quietly when it cannot say", async () => {
    const calls: [string, readonly string[]][] = [];
    const answer = (result: Partial<RunResult>) => async (file: string, args: readonly string[]) => {
      calls.push([file, args]);
      return { ok: true, code: 0, stdout: "", stderr: "", ...result };
    };
    expect(await tmuxPlaceOf(TMUX, answer({ stdout: "work:2.1\n" }))).toBe("work:2.1");
    expect(calls[0]).toEqual([
      "tmux",
      ["-S", "/tmp/tmux-1000/default", "display-message", "-p", "-t", "%7", "#{session_name}:#{window_index}.#{pane_index}"],
    ]);
    expect(await tmuxPlaceOf(TMUX, answer({ ok: false, code: 1, stderr: "can't find pane: %7" }))).toBeUndefined();
    expect(await tmuxPlaceOf({ TMUX_PANE: "%7" }, answer({ stdout: "x:0.0" }))).toBeUndefined();
    expect(calls).toHaveLength(2);
  });
});

describe("show's fields", () => {
  it("aligns every value after its field name, the longest one included", () => {
    const session = {
      id: "fleet:v1:codex:x",
      short_id: "abc",
      harness: "codex",
      harness_name: "Codex CLI",
      status: "running",
      recorded_status: "running",
      stale: false,
      stale_reason: "",
      detail: "d",
      cwd: "/w",
      pid: 12,
      identity: "process",
      session_id: "s",
      instance_id: "i",
      last_event: "codex.x",
      status_changed_at: "2026-11-29T12:00:00.000Z",
      created_at: "2026-11-29T11:00:00.000Z",
      launch_id: "",
      profile_id: "",
      terminal: { env: {}, unprovable: "Codex's shared app-server daemon" },
    } as unknown as SessionView;
    const lines = formatDetails(session, Date.parse("2026-11-29T12:01:00.000Z")).split("\n");
    expect(lines).toContain("terminal note: Codex's shared app-server daemon");
    expect(lines).toContain("agent:         Codex CLI (codex)");
    expect(new Set(lines.map((line) => /^[a-z ]+:\s+/.exec(line)?.[0].length))).toEqual(new Set([15]));
  });
});
