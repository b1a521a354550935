import { afterEach, describe, expect, it } from "vitest";
import { FakeBus } from "../../test/fake-bus.ts";
import { testWorld } from "../../test/notify-world.ts";
import { bellChannel } from "./bell.ts";
import type { Notice } from "./contract.ts";
import { desktopLinuxChannel, outcomeOfAction } from "./desktop-linux.ts";
import { composeNotice } from "./message.ts";
import type { TmuxClientView, TmuxServerView } from "../../backends/tmux/survey.ts";
import type { Place } from "./contract.ts";
import { oscNotification, terminalKind, terminalOscChannel, tmuxPassthrough } from "./terminal-osc.ts";
import { tmuxMessageChannel } from "./tmux-message.ts";

const client = (tty: string, extra: Partial<TmuxClientView> = {}): TmuxClientView => ({
  tty,
  focused: true,
  termname: "xterm-kitty",
  pid: 100,
  windowId: "@1",
  pane: "%1",
  paneTty: "/dev/pts/11",
  passthrough: true,
  ...extra,
});
const server = (clients: TmuxClientView[], focusKnown = false): TmuxServerView => ({ socket: "/tmp/tmux-0/default", focusKnown, clients });
const tmuxPlace = (srv: TmuxServerView, pane = "%5", windowId = "@2"): Place => ({
  kind: "tmux",
  sessionId: "fleet:v1:claude:a",
  server: srv,
  pane,
  paneTty: "/dev/pts/15",
  windowId,
  zoomed: false,
  where: `tmux ${pane} (work:2)`,
});

const waitingApi = {
  id: "fleet:v1:claude:aa",
  harnessName: "Claude Code",
  cwd: "/src/api",
  status: "waiting",
  detail: "permission: Bash",
  where: "tmux %5 (work:2)",
} as const;
const notice: Notice = composeNotice([waitingApi]);
/** The same waiting session, with an open wait keys can answer. */
const answerable: Notice = composeNotice([{ ...waitingApi, wait: "9c41d0e2aa17" }]);
const burst: Notice = composeNotice(
  ["api", "web", "cli"].map((dir, index) => ({
    id: `fleet:v1:claude:${index}`,
    harnessName: "Codex",
    cwd: `/src/${dir}`,
    status: "error" as const,
    detail: "turn failed",
    where: "tmux",
  })),
);

describe("terminal channel (OSC)", () => {
  it("knows kitty, WezTerm, Ghostty, foot and iTerm2 by their environment or TERM", () => {
    expect(terminalKind({ KITTY_WINDOW_ID: "3" })).toBe("kitty");
    expect(terminalKind({}, "xterm-kitty")).toBe("kitty");
    expect(terminalKind({ WEZTERM_PANE: "1" })).toBe("wezterm");
    expect(terminalKind({ TERM_PROGRAM: "ghostty" })).toBe("ghostty");
    expect(terminalKind({}, "foot-extra")).toBe("foot");
    expect(terminalKind({ TERM_PROGRAM: "iTerm.app" })).toBe("iterm2");
    expect(terminalKind({ TERM_PROGRAM: "Apple_Terminal" }, "xterm-256color")).toBeUndefined();
  });

  it("writes exactly these sequences", () => {
    const title = Buffer.from("Claude Code needs you: api").toString("base64");
    const body = Buffer.from("permission: Bash\ntmux %5 (work:2)").toString("base64");
    expect(oscNotification("kitty", notice, "ab12")).toBe(
      `\x1b]99;i=ab12:d=0:e=1;${title}\x1b\\\x1b]99;i=ab12:d=1:p=body:e=1;${body}\x1b\\`,
    );
    expect(oscNotification("wezterm", notice)).toBe("\x1b]777;notify;Claude Code needs you: api;permission: Bash | tmux %5 (work:2)\x07");
    expect(oscNotification("iterm2", notice)).toBe("\x1b]9;Claude Code needs you: api: permission: Bash\x07");
    expect(tmuxPassthrough("\x1b]9;x\x07")).toBe("\x1bPtmux;\x1b\x1b]9;x\x07\x1b\\");
  });

  it("inside tmux: to the pane each client shows, wrapped for passthrough, once per tty", async () => {
    const { world, writes } = testWorld();
    const srv = server([
      client("/dev/pts/3"),
      client("/dev/pts/4", { paneTty: "/dev/pts/11" }),
      client("/dev/pts/5", { paneTty: "/dev/pts/12", termname: "foot" }),
    ]);
    const sent = await terminalOscChannel.deliver(notice, [tmuxPlace(srv)], world);
    expect(sent.outcome).toBe("delivered");
    expect(writes.map((write) => write.path)).toEqual(["/dev/pts/11", "/dev/pts/12"]);
    expect(writes[0]?.data.startsWith("\x1bPtmux;\x1b\x1b]99;")).toBe(true);
    expect(writes[1]?.data.startsWith("\x1bPtmux;\x1b\x1b]777;notify;")).toBe(true);
    expect(sent.detail).toContain("OSC 99 to client /dev/pts/3 (kitty) through pane %1");
  });

  it("reads the terminal of a client from its process environment when TERM does not tell", async () => {
    const { world, writes } = testWorld({ environOf: async (pid) => (pid === 100 ? { TERM_PROGRAM: "WezTerm" } : undefined) });
    await terminalOscChannel.deliver(notice, [tmuxPlace(server([client("/dev/pts/3", { termname: "xterm-256color" })]))], world);
    expect(writes[0]?.data).toContain("]777;notify;");
  });

  it("says why it cannot: passthrough off, unknown terminal, nobody attached", async () => {
    const { world, writes } = testWorld();
    const sent = await terminalOscChannel.deliver(
      notice,
      [
        tmuxPlace(
          server([
            client("/dev/pts/3", { passthrough: false }),
            client("/dev/pts/4", { termname: "screen-256color", paneTty: "/dev/pts/9" }),
          ]),
        ),
      ],
      world,
    );
    expect(writes).toEqual([]);
    expect(sent.outcome).toBe("unavailable");
    expect(sent.detail).toContain("allow-passthrough off");
    expect(sent.detail).toContain("not known to show OSC notifications");
    expect((await terminalOscChannel.detect([tmuxPlace(server([]))], world)).detail).toContain("no client is attached");
  });

  it("outside tmux: to the session's own tty, unwrapped", async () => {
    const { world, writes } = testWorld();
    const place: Place = {
      kind: "terminal",
      sessionId: "x",
      tty: "/dev/pts/7",
      env: { KITTY_WINDOW_ID: "2" },
      focused: false,
      where: "kitty window 2",
    };
    await terminalOscChannel.deliver(notice, [place], world);
    expect(writes.map((write) => write.path)).toEqual(["/dev/pts/7"]);
    expect(writes[0]?.data.startsWith("\x1b]99;i=")).toBe(true);
  });

  it("a tty that refuses the write is reported", async () => {
    const { world } = testWorld({ writeTty: () => ({ ok: false, detail: "/dev/pts/11: the terminal is not reading" }) });
    const sent = await terminalOscChannel.deliver(notice, [tmuxPlace(server([client("/dev/pts/3")]))], world);
    expect(sent).toMatchObject({ outcome: "failed", detail: expect.stringContaining("not reading") });
  });
});

describe("tmux channel", () => {
  it("messages the clients that do not show the pane, with -- and tmux formats escaped", async () => {
    const { world, calls } = testWorld();
    const hostile = composeNotice([
      { id: "fleet:v1:claude:aa", harnessName: "Claude Code", cwd: "/src/#(touch pwned)", status: "waiting", detail: "-x;", where: "tmux" },
    ]);
    const srv = server([client("/dev/pts/3", { windowId: "@2" }), client("/dev/pts/4", { windowId: "@9" })]);
    const sent = await tmuxMessageChannel.deliver(hostile, [tmuxPlace(srv, "%5", "@2")], world);
    expect(calls).toEqual([
      [
        "tmux",
        "-u",
        "-S",
        "/tmp/tmux-0/default",
        "display-message",
        "-c",
        "/dev/pts/4",
        "--",
        "tongs-agents: Claude Code needs you: ##(touch pwned): -x;.",
      ],
    ]);
    expect(sent).toMatchObject({ outcome: "delivered", detail: "message on /dev/pts/4" });
  });

  it("is not needed when every client shows the pane", async () => {
    const { world, calls } = testWorld();
    const sent = await tmuxMessageChannel.deliver(
      notice,
      [tmuxPlace(server([client("/dev/pts/3", { windowId: "@2" })]), "%5", "@2")],
      world,
    );
    expect(calls).toEqual([]);
    expect(sent.outcome).toBe("not-needed");
  });
});

describe("bell channel", () => {
  it("rings in the pane (tmux) or the session's tty", async () => {
    const { world, writes } = testWorld();
    const direct: Place = { kind: "terminal", sessionId: "y", tty: "/dev/pts/8", env: {}, focused: undefined, where: "/dev/pts/8" };
    const sent = await bellChannel.deliver(notice, [tmuxPlace(server([])), direct, { kind: "unknown", sessionId: "z", where: "?" }], world);
    expect(writes).toEqual([
      { path: "/dev/pts/15", data: "\x07" },
      { path: "/dev/pts/8", data: "\x07" },
    ]);
    expect(sent.outcome).toBe("delivered");
  });
});

describe("desktop channel (freedesktop, against a fake bus)", () => {
  let bus: FakeBus | undefined;
  afterEach(async () => {
    await bus?.stop();
    bus = undefined;
  });
  const worldOn = (address: string) => testWorld({ env: { DBUS_SESSION_BUS_ADDRESS: address } }).world;

  it("sends Notify with the text, urgency and actions, and a click names the session", async () => {
    bus = await new FakeBus().start();
    const sent = await desktopLinuxChannel.deliver(burst, [], worldOn(bus.address));
    expect(sent.outcome).toBe("delivered");
    const [app, replaces, icon, summary, body, actions, hints, timeout] = bus.notified[0]?.body ?? [];
    expect([app, replaces, icon, summary, timeout]).toEqual(["tongs-agents", 0, "", "3 agents failed", -1]);
    expect(body).toBe("api (Codex) error: turn failed\nweb (Codex) error: turn failed\ncli (Codex) error: turn failed");
    expect(actions).toEqual([
      "default",
      "Focus",
      "focus-0",
      "Go to api (Codex)",
      "focus-1",
      "Go to web (Codex)",
      "focus-2",
      "Go to cli (Codex)",
    ]);
    expect(hints).toEqual([["urgency", { signature: "y", value: 1 }]]);
    const waiting = sent.pending?.wait({ timeoutMs: 5000, stillWanted: () => true });
    bus.click(1, "focus-2");
    await expect(waiting).resolves.toEqual({ kind: "clicked", sessionId: "fleet:v1:claude:2" });
    await sent.pending?.close();
    expect(bus.closedIds).toEqual([1]);
  });

  it("keeps a click that comes before anyone waits", async () => {
    bus = await new FakeBus().start();
    const sent = await desktopLinuxChannel.deliver(notice, [], worldOn(bus.address));
    bus.click(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(sent.pending?.wait({ timeoutMs: 5000, stillWanted: () => true })).resolves.toEqual({
      kind: "clicked",
      sessionId: "fleet:v1:claude:aa",
    });
    await sent.pending?.close();
  });

  it("escapes markup only for a server that reads it, and offers no action to a server without actions", async () => {
    bus = await new FakeBus("answers", ["body"]).start();
    const marked = composeNotice([
      { id: "fleet:v1:pi:aa", harnessName: "Pi", cwd: "/src/<b>x</b>", status: "idle", detail: "a & b", where: "here" },
    ]);
    const sent = await desktopLinuxChannel.deliver(marked, [], worldOn(bus.address));
    expect(sent.pending).toBeUndefined();
    expect(sent.detail).toContain("the server has no actions");
    expect(bus.notified[0]?.body[4]).toBe("a & b\nhere");
    expect(bus.notified[0]?.body[5]).toEqual([]);
    await bus.stop();
    bus = await new FakeBus("answers", ["actions", "body-markup"]).start();
    await desktopLinuxChannel.deliver(marked, [], worldOn(bus.address));
    expect(bus.notified[0]?.body[4]).toBe("a &amp; b\nhere");
  });

  it("stops waiting when the notification closes, or the sessions moved on (and withdraws it)", async () => {
    bus = await new FakeBus().start();
    const first = await desktopLinuxChannel.deliver(notice, [], worldOn(bus.address));
    const closed = first.pending?.wait({ timeoutMs: 5000, stillWanted: () => true });
    bus.signal(1, "NotificationClosed", "uu", [1, 2]);
    await expect(closed).resolves.toEqual({ kind: "closed", detail: "dismissed by the user" });
    await first.pending?.close();
    const second = await desktopLinuxChannel.deliver(notice, [], worldOn(bus.address));
    await expect(second.pending?.wait({ timeoutMs: 5000, stillWanted: () => false, checkEveryMs: 20 })).resolves.toMatchObject({
      kind: "closed",
      detail: expect.stringContaining("moved on"),
    });
    await second.pending?.close();
    expect(bus.closedIds).toContain(2);
  });

  it("a hung server is a failure within the bound; no server is unavailable; no bus is unavailable", async () => {
    bus = await new FakeBus("hung").start();
    const started = Date.now();
    const hung = await desktopLinuxChannel.deliver(notice, [], worldOn(bus.address));
    expect(hung).toMatchObject({ outcome: "failed", detail: expect.stringContaining("did not answer") });
    expect(Date.now() - started).toBeLessThan(10_000);
    await bus.stop();
    bus = await new FakeBus("absent").start();
    expect(await desktopLinuxChannel.deliver(notice, [], worldOn(bus.address))).toMatchObject({
      outcome: "unavailable",
      detail: expect.stringContaining("no notification server"),
    });
    expect(await desktopLinuxChannel.detect([], testWorld({ env: {} }).world)).toMatchObject({
      available: false,
      detail: expect.stringContaining("no session bus"),
    });
    expect(await desktopLinuxChannel.detect([], worldOn("unix:path=/nonexistent/bus"))).toMatchObject({
      available: false,
      detail: expect.stringContaining("ENOENT"),
    });
  });

  it("maps action keys to sessions, and Allow / Deny to that notice's one wait only", () => {
    expect(outcomeOfAction(burst, "default")).toEqual({ kind: "clicked", sessionId: "fleet:v1:claude:0" });
    expect(outcomeOfAction(burst, "focus-1")).toEqual({ kind: "clicked", sessionId: "fleet:v1:claude:1" });
    expect(outcomeOfAction(burst, "focus-9")).toBeUndefined();
    expect(outcomeOfAction(burst, "evil")).toBeUndefined();
    expect(outcomeOfAction(answerable, "allow:9c41d0e2aa17")).toEqual({
      kind: "reply",
      sessionId: "fleet:v1:claude:aa",
      wait: "9c41d0e2aa17",
      reply: "allow",
    });
    expect(outcomeOfAction(answerable, "deny:9c41d0e2aa17")).toMatchObject({ kind: "reply", reply: "deny" });
    // Another wait's button (an older notification's key), a notice without a wait, a malformed key: no answer.
    expect(outcomeOfAction(answerable, "allow:000000000000")).toBeUndefined();
    expect(outcomeOfAction(notice, "allow:9c41d0e2aa17")).toBeUndefined();
    expect(outcomeOfAction(answerable, "allow:9c41d0e2aa17;rm")).toBeUndefined();
  });

  it("offers Allow and Deny for one waiting session keys can answer, never for a notice about several", async () => {
    bus = await new FakeBus().start();
    const sent = await desktopLinuxChannel.deliver(answerable, [], worldOn(bus.address));
    expect(bus.notified[0]?.body[5]).toEqual(["default", "Focus", "allow:9c41d0e2aa17", "Allow", "deny:9c41d0e2aa17", "Deny"]);
    const waiting = sent.pending?.wait({ timeoutMs: 5000, stillWanted: () => true });
    // Another client sending what looks like the server's ActionInvoked is not a click.
    bus.click(1, "allow:9c41d0e2aa17", ":1.66");
    await new Promise((resolve) => setTimeout(resolve, 100));
    bus.click(1, "deny:9c41d0e2aa17");
    await expect(waiting).resolves.toEqual({ kind: "reply", sessionId: "fleet:v1:claude:aa", wait: "9c41d0e2aa17", reply: "deny" });
    await sent.pending?.close();
    const several = composeNotice(
      ["a", "b"].map((dir) => ({
        id: `fleet:v1:claude:${dir}`,
        harnessName: "Claude Code",
        cwd: `/src/${dir}`,
        status: "waiting" as const,
        detail: "permission: Bash",
        where: "tmux",
        wait: "9c41d0e2aa17",
      })),
    );
    expect(several.sessions.map((session) => session.wait)).toEqual([undefined, undefined]);
  });
});
