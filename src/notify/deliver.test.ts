import { describe, expect, it } from "vitest";
import { testWorld } from "../../test/notify-world.ts";
import type { RunResult, Runner } from "../core/exec.ts";
import type { Terminal } from "../core/schema.ts";
import { DEFAULT_CONFIG, type ChannelId, type NotifyConfig } from "./config.ts";
import type { Delivery, NotifyChannel } from "./contract.ts";
import { deliverBatch, type BatchSession } from "./deliver.ts";
import { onScreen, surveyPlaces } from "./survey.ts";

const SOCKET = "/tmp/tmux-0/work";
const tmuxTerminal = (pane: string): Terminal => ({ env: { TMUX: `${SOCKET},123,0`, TMUX_PANE: pane }, tty: "/dev/pts/20" });

/** tmux's answer to the survey: version, focus-events, panes, clients (each client: tty, flags, TERM, pid, window, pane, pane tty, passthrough). */
function tmuxAnswer({ focusEvents = "off", clients }: { focusEvents?: string; clients: string[] }): Runner {
  return async (file, args) => {
    if (file !== "tmux" || args[3] !== "display-message")
      return { ok: false, code: 1, stdout: "", stderr: "unexpected" } satisfies RunResult;
    // Window @2 holds %5 and %6 side by side; window @3 is zoomed onto %7, hiding %8.
    const panes = [
      "%0\t/dev/pts/1\t@0\t0\twork:0",
      "%5\t/dev/pts/15\t@2\t0\twork:2",
      "%6\t/dev/pts/16\t@2\t0\twork:2",
      "%7\t/dev/pts/17\t@3\t1\twork:3",
      "%8\t/dev/pts/18\t@3\t1\twork:3",
    ];
    const stdout = ["server\t3.3a", focusEvents, ...panes.map((row) => `pane\t${row}`), ...clients.map((row) => `client\t${row}`)].join(
      "\n",
    );
    return { ok: true, code: 0, stdout, stderr: "" };
  };
}

describe("survey and on-screen", () => {
  it("reads panes and clients in one tmux call", async () => {
    const { world } = testWorld({
      run: tmuxAnswer({ clients: ["/dev/pts/3\tattached,focused,UTF-8\txterm-kitty\t4242\t@0\t%0\t/dev/pts/1\t1"] }),
    });
    const [place] = await surveyPlaces([{ id: "a", terminal: tmuxTerminal("%5") }], world);
    expect(place).toEqual({
      kind: "tmux",
      sessionId: "a",
      pane: "%5",
      paneTty: "/dev/pts/15",
      windowId: "@2",
      zoomed: false,
      where: "tmux %5 (work:2)",
      server: {
        socket: SOCKET,
        focusKnown: false,
        clients: [
          {
            tty: "/dev/pts/3",
            focused: true,
            termname: "xterm-kitty",
            pid: 4242,
            windowId: "@0",
            pane: "%0",
            paneTty: "/dev/pts/1",
            passthrough: true,
          },
        ],
      },
    });
  });

  it.each([
    // [what, focus-events, client row, target pane, on screen?]
    ["focus unknown: the client's active pane", "off", "/dev/pts/3\tattached,focused\txterm\t1\t@2\t%5\t/dev/pts/15\t0", "%5", true],
    ["focus unknown: visible but not active", "off", "/dev/pts/3\tattached,focused\txterm\t1\t@2\t%5\t/dev/pts/15\t0", "%6", false],
    [
      "focus known: visible (not active) in a focused window",
      "on",
      "/dev/pts/3\tattached,focused\txterm\t1\t@2\t%6\t/dev/pts/16\t0",
      "%5",
      true,
    ],
    ["focus known: shown but the window is not focused", "on", "/dev/pts/3\tattached\txterm\t1\t@2\t%5\t/dev/pts/15\t0", "%5", false],
    ["focus known: focused, shown", "on", "/dev/pts/3\tattached,focused\txterm\t1\t@2\t%5\t/dev/pts/15\t0", "%5", true],
    ["another window", "on", "/dev/pts/3\tattached,focused\txterm\t1\t@0\t%0\t/dev/pts/1\t0", "%5", false],
  ])("%s", async (_what, focusEvents, row, pane, expected) => {
    const { world } = testWorld({ run: tmuxAnswer({ focusEvents, clients: [row] }) });
    const [place] = await surveyPlaces([{ id: "a", terminal: tmuxTerminal(pane) }], world);
    expect(onScreen(place!).onScreen).toBe(expected);
  });

  it("a zoomed window shows only its active pane", async () => {
    const { world } = testWorld({
      run: tmuxAnswer({ focusEvents: "on", clients: ["/dev/pts/3\tattached,focused\txterm\t1\t@3\t%7\t/dev/pts/17\t0"] }),
    });
    const [shown, hidden] = await surveyPlaces(
      [
        { id: "a", terminal: tmuxTerminal("%7") },
        { id: "b", terminal: tmuxTerminal("%8") },
      ],
      world,
    );
    expect(hidden).toMatchObject({ kind: "tmux", zoomed: true, windowId: "@3" });
    expect([onScreen(shown!).onScreen, onScreen(hidden!).onScreen]).toEqual([true, false]);
  });

  it("a gone pane or server, a Codex daemon and an unknown terminal are never on screen", async () => {
    const { world } = testWorld({ run: async () => ({ ok: false, code: 1, stdout: "", stderr: "no server running" }) });
    const places = await surveyPlaces(
      [
        { id: "a", terminal: tmuxTerminal("%5") },
        { id: "b", terminal: { env: {}, unprovable: "Codex shared daemon" } },
        { id: "c", terminal: { env: {}, tty: "/dev/pts/4" } },
      ],
      world,
    );
    expect(places.map((place) => place.kind)).toEqual(["unknown", "unknown", "terminal"]);
    expect(places.map((place) => onScreen(place).onScreen)).toEqual([false, false, false]);
  });

  it("a plain X11 terminal is on screen when its window has the focus", async () => {
    const run: Runner = async (file, args) => ({
      ok: true,
      code: 0,
      stdout: file === "xdotool" && args[0] === "getactivewindow" ? "4194317" : "",
      stderr: "",
    });
    const { world } = testWorld({ run });
    const [focused, other] = await surveyPlaces(
      [
        { id: "a", terminal: { env: { WINDOWID: "4194317", DISPLAY: ":5" }, tty: "/dev/pts/4" } },
        { id: "b", terminal: { env: { WINDOWID: "4194999", DISPLAY: ":5" }, tty: "/dev/pts/5" } },
      ],
      world,
    );
    expect(onScreen(focused!)).toMatchObject({ onScreen: true });
    expect(onScreen(other!)).toMatchObject({ onScreen: false, why: expect.stringContaining("does not have focus") });
  });
});

/** A channel that records what it was given and answers with `outcome`. */
function recordingChannel(id: ChannelId, outcome: Delivery["outcome"]) {
  const sent: string[][] = [];
  const channel: NotifyChannel = {
    id,
    detect: async () => ({ channel: id, available: true, detail: "" }),
    deliver: async (notice) => {
      sent.push(notice.sessions.map((session) => session.id));
      return { channel: id, outcome, detail: `${id} ${outcome}` };
    },
  };
  return { channel, sent };
}

const session = (id: string, status: BatchSession["status"], pane = "%5"): BatchSession => ({
  id,
  terminal: tmuxTerminal(pane),
  harnessName: "Claude Code",
  cwd: `/src/${id}`,
  status,
  detail: "",
  changedAt: "2026-01-01T00:00:00.000Z",
});

describe("deliverBatch: which channel, for whom", () => {
  const world = testWorld({ run: tmuxAnswer({ clients: ["/dev/pts/3\tattached,focused\txterm\t1\t@0\t%0\t/dev/pts/1\t1"] }) }).world;

  it("desktop first; the terminal's own notification only when no desktop notification went out; the bell only when nothing reached", async () => {
    const channels = [
      recordingChannel("desktop", "delivered"),
      recordingChannel("terminal", "delivered"),
      recordingChannel("tmux", "delivered"),
      recordingChannel("bell", "delivered"),
    ];
    const report = await deliverBatch(
      [session("a", "waiting"), session("b", "error")],
      DEFAULT_CONFIG,
      world,
      channels.map((entry) => entry.channel),
    );
    expect(channels.map((entry) => entry.sent)).toEqual([[["a", "b"]], [], [["a", "b"]], []]);
    expect(report.deliveries.map((delivery) => `${delivery.channel}:${delivery.outcome}`)).toEqual([
      "desktop:delivered",
      "terminal:not-needed",
      "tmux:delivered",
      "bell:not-needed",
    ]);
  });

  it("without a desktop notification the terminal's goes out; with nothing at all, the bell", async () => {
    const failing = [
      recordingChannel("desktop", "unavailable"),
      recordingChannel("terminal", "unavailable"),
      recordingChannel("tmux", "failed"),
      recordingChannel("bell", "delivered"),
    ];
    await deliverBatch(
      [session("a", "waiting")],
      DEFAULT_CONFIG,
      world,
      failing.map((entry) => entry.channel),
    );
    expect(failing.map((entry) => entry.sent.length)).toEqual([1, 1, 1, 1]);
  });

  it("per state: idle through tmux only, when configured", async () => {
    const config: NotifyConfig = { ...DEFAULT_CONFIG, states: { ...DEFAULT_CONFIG.states, idle: ["tmux"] } };
    const channels = [
      recordingChannel("desktop", "delivered"),
      recordingChannel("terminal", "delivered"),
      recordingChannel("tmux", "delivered"),
      recordingChannel("bell", "delivered"),
    ];
    const report = await deliverBatch(
      [session("a", "idle"), session("b", "waiting")],
      config,
      world,
      channels.map((entry) => entry.channel),
    );
    expect(channels.map((entry) => entry.sent)).toEqual([[["b"]], [], [["a", "b"]], []]);
    expect(report.notified).toEqual(["a", "b"]);
  });

  it("a session on screen is dropped, with the reason; when all are, nothing is sent", async () => {
    const onScreenWorld = testWorld({
      run: tmuxAnswer({ clients: ["/dev/pts/3\tattached,focused\txterm\t1\t@2\t%5\t/dev/pts/15\t1"] }),
    }).world;
    const channels = [recordingChannel("desktop", "delivered")];
    const report = await deliverBatch(
      [session("a", "waiting", "%5"), session("b", "waiting", "%0")],
      DEFAULT_CONFIG,
      onScreenWorld,
      channels.map((entry) => entry.channel),
    );
    expect(report.suppressed).toEqual([{ id: "a", why: expect.stringContaining("active pane of client /dev/pts/3") }]);
    expect(channels[0]?.sent).toEqual([["b"]]);
    const none = await deliverBatch(
      [session("a", "waiting", "%5")],
      DEFAULT_CONFIG,
      onScreenWorld,
      channels.map((entry) => entry.channel),
    );
    expect(none).toMatchObject({ notified: [], deliveries: [] });
  });
});
