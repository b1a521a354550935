import { describe, expect, it } from "vitest";
import { failed, type FocusContext } from "../contract.ts";
import { fakeX, type FakeXOptions } from "../../test/fake-x.ts";
import { parseWindowId, x11Backend } from "./backend.ts";

// Mocked: fake xdotool/wmctrl (test/fake-x.ts) with the messages observed under Xvfb. The live suite
// (test/live/x11-focus.test.ts) runs real xterm windows under Xvfb, with and without openbox.

const XTERM = 4194316; // 0x40000c
const OTHER = 6291468;

function lab(options: FakeXOptions = {}, env: NodeJS.ProcessEnv = {}) {
  const x = fakeX(options);
  x.windows.add(XTERM);
  x.windows.add(OTHER);
  x.focused = OTHER;
  const context: FocusContext = {
    run: x.run,
    env,
    client: undefined,
    platform: "linux",
    environOf: async () => undefined,
    raiseOuter: async () => failed("not used"),
  };
  return { x, context, argv: () => x.calls.map((call) => [call.file, ...call.args]) };
}

describe("detect", () => {
  it("takes WINDOWID (decimal, or hex) and the captured DISPLAY", () => {
    expect(x11Backend.detect({ env: { WINDOWID: "4194316", DISPLAY: ":1" } })).toEqual({ windowId: XTERM, display: ":1" });
    expect(x11Backend.detect({ env: { WINDOWID: "0x40000c" } })).toEqual({ windowId: XTERM, display: undefined });
    expect(x11Backend.detect({ env: { DISPLAY: ":1" } })).toBeUndefined();
    expect(parseWindowId("12abc")).toBeUndefined();
    expect(parseWindowId("0")).toBeUndefined();
  });
});

describe("x11Backend.focus", () => {
  it("with a window manager: the window exists (selection), windowactivate --sync, getactivewindow agrees", async () => {
    const { x, context, argv } = lab();
    const outcome = await x11Backend.focus({ windowId: XTERM, display: ":1" }, context);
    expect(argv()).toEqual([
      ["xdotool", "getwindowname", String(XTERM)],
      ["xdotool", "windowactivate", "--sync", String(XTERM)],
      ["xdotool", "getactivewindow"],
    ]);
    expect(x.calls.every((call) => call.display === ":1")).toBe(true);
    expect(outcome).toEqual({
      located: true,
      target: "X11 window 0x40000c on :1",
      selection: {
        attempted: true,
        succeeded: true,
        detail: "X window 0x40000c exists on :1; a plain X11 terminal has no tabs or panes to select",
      },
      activation: { attempted: true, succeeded: true, detail: "xdotool windowactivate 0x40000c; it is the active window" },
    });
  });

  it("without a window manager (no _NET_ACTIVE_WINDOW): raise and set the input focus, verified with getwindowfocus", async () => {
    const { context, argv } = lab({ wm: false });
    const outcome = await x11Backend.focus({ windowId: XTERM, display: ":1" }, context);
    expect(argv()).toEqual([
      ["xdotool", "getwindowname", String(XTERM)],
      ["xdotool", "windowactivate", "--sync", String(XTERM)],
      ["xdotool", "windowraise", String(XTERM)],
      ["xdotool", "windowfocus", "--sync", String(XTERM)],
      ["xdotool", "getactivewindow"],
      ["xdotool", "getwindowfocus"],
    ]);
    expect(outcome.activation).toEqual({
      attempted: true,
      succeeded: true,
      detail: "no window manager; xdotool windowfocus 0x40000c; it is the input focus (no window manager)",
    });
  });

  it("xdotool missing: wmctrl activates, but nothing can check the result", async () => {
    const { context, argv } = lab({ xdotool: false });
    const outcome = await x11Backend.focus({ windowId: XTERM, display: ":1" }, context);
    expect(argv()).toContainEqual(["wmctrl", "-i", "-a", "0x40000c"]);
    expect(outcome).toMatchObject({
      selection: { succeeded: false },
      activation: {
        attempted: true,
        succeeded: false,
        detail: expect.stringContaining("not verified: xdotool is not installed (apt install xdotool)"),
      },
    });
  });

  it("a window manager that ignores the request: selection only (partial), saying what is active instead", async () => {
    const { context } = lab({ refuses: true });
    const outcome = await x11Backend.focus({ windowId: XTERM, display: ":1" }, context);
    expect(outcome).toMatchObject({ selection: { succeeded: true }, activation: { succeeded: false } });
    expect(outcome.activation.detail).toMatch(
      /xdotool windowactivate: timeout; wmctrl -i -a 0x40000c, but the active window is 0x60000c, not 0x40000c/,
    );
  });

  it("a window that no longer exists is not located", async () => {
    const { context, argv } = lab();
    const outcome = await x11Backend.focus({ windowId: 12345, display: ":1" }, context);
    expect(outcome).toMatchObject({
      located: false,
      selection: { succeeded: false, detail: "X window 0x3039 no longer exists on :1" },
      activation: { attempted: false },
    });
    expect(argv()).toEqual([["xdotool", "getwindowname", "12345"]]);
  });

  it("unavailable: neither xdotool nor wmctrl (names the package), or no DISPLAY at all", async () => {
    const none = await x11Backend.focus({ windowId: XTERM, display: ":1" }, lab({ xdotool: false, wmctrl: false }).context);
    expect(none.unavailable).toBe("cannot focus X11 windows: neither xdotool nor wmctrl is installed (Debian/Ubuntu: apt install xdotool)");
    const noDisplay = await x11Backend.focus({ windowId: XTERM, display: undefined }, lab().context);
    expect(noDisplay.unavailable).toContain("no X display");
  });

  it("uses the caller's DISPLAY when the session captured none", async () => {
    const { x, context } = lab({}, { DISPLAY: ":7" });
    expect(await x11Backend.focus({ windowId: XTERM, display: undefined }, context)).toMatchObject({ activation: { succeeded: true } });
    expect(x.calls[0]?.display).toBe(":7");
  });
});

describe("x11Backend.raise (a tmux client in a plain X11 terminal)", () => {
  it("raises the window named by the client's WINDOWID on the client's DISPLAY", async () => {
    const { x, context } = lab();
    const raised = await x11Backend.raise({ WINDOWID: String(XTERM), DISPLAY: ":3", TERM: "xterm-256color" }, context);
    expect(raised).toMatchObject({ succeeded: true, detail: expect.stringContaining("raised X11 window 0x40000c on :3") });
    expect(x.focused).toBe(XTERM);
    expect(x.calls.every((call) => call.display === ":3")).toBe(true);
  });

  it("is not X11's without WINDOWID; reports a gone window", async () => {
    const { context } = lab();
    expect(await x11Backend.raise({ DISPLAY: ":3" }, context)).toBeUndefined();
    expect(await x11Backend.raise({ WINDOWID: "12345", DISPLAY: ":3" }, context)).toMatchObject({
      succeeded: false,
      detail: "X window 0x3039 no longer exists on :3",
    });
  });
});
