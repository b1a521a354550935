// show's human output: the terminal place in each terminal's own words, and aligned field names.
import { describe, expect, it } from "vitest";
import { NO_USAGE } from "../fleet/usage.ts";
import type { SessionView } from "../fleet/view.ts";
import { formatDetails, formatTerminalPlace } from "./format.ts";

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
});

describe("show's fields", () => {
  it("aligns every value after its field name, the longest one included", () => {
    const session = {
      ...NO_USAGE,
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
    // What the harness did not state is said as such, never left out or guessed.
    expect(lines).toContain("model:         —");
    expect(lines).toContain("context:       —");
    expect(lines).toContain("quota:         —");
    expect(new Set(lines.map((line) => /^[a-z ]+:\s+/.exec(line)?.[0].length))).toEqual(new Set([15]));
  });
});
