// Live: desktop notifications through a real notification daemon. A private D-Bus session bus (dbus-daemon) with dunst
// on it, under Xvfb; agents (processes named exactly `claude`) in real tmux panes report events through the real hook,
// which starts the real notifier (dist/notify.cjs); a real tmux client runs in an xterm on the same display. dunst's
// own control tool invokes the notification's action, as a click does.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shortId } from "../../src/core/identity.ts";
import type { Sandbox } from "../sandbox.ts";
import {
  alive,
  closeNotifyLab,
  notifyLog,
  nthDecision,
  openNotifyLab,
  waitForLog,
  writeNotifyConfig,
  type NotifyDesktop,
  type NotifyLab,
  type NotifyLogEntry,
  type TriggeredAgents,
} from "./notify-lab.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";
import type { XServer } from "./x-lab.ts";

let lab: NotifyLab;
let sandbox: Sandbox;
let x: XServer;
let desktop: NotifyDesktop;
let tmux: TmuxLab;
let agents: TriggeredAgents;

beforeEach(async () => {
  lab = await openNotifyLab({ click_wait_seconds: 60 });
  ({ sandbox, x, desktop, agents } = lab);
  tmux = new TmuxLab(sandbox);
});

afterEach(() => closeNotifyLab(lab, async () => tmux.stop()));

/**
 * Give the X input focus to the window of the xterm `pid`, once it is mapped: `search --sync --pid` alone can return the
 * window before it is viewable, and SetInputFocus on it fails with BadMatch (seen under CI's load).
 */
function focusXtermOf(pid: number | undefined): void {
  x.xdotool("windowfocus", "--sync", x.xdotool("search", "--sync", "--onlyvisible", "--pid", String(pid)).split("\n")[0] as string);
}

/** A tmux client in an xterm, attached to `session`; that xterm is given the X input focus. */
async function attachInXterm(session: string): Promise<string> {
  const xterm = await x.xterm(["env", "-u", "TMUX", "tmux", "-S", tmux.inner, "attach", "-t", session]);
  await waitFor(() => tmux.clients().length === 1, "the tmux client in xterm to attach");
  focusXtermOf(xterm.pid);
  return tmux.clients()[0]?.tty as string;
}

const logEntry = (predicate: (entry: NotifyLogEntry) => boolean, what: string) => waitForLog(sandbox.stateDir, predicate, what);

/** The record of the session a log entry names by short id. */
function recordNamed(short: string): { status: string; detail: string } {
  const sessionsDir = join(sandbox.stateDir, "sessions");
  const name = readdirSync(sessionsDir).find(
    (file) => /^[0-9a-f]{64}\.json$/.test(file) && shortId(`fleet:v1:claude:${file.slice(0, 64)}`) === short,
  );
  if (!name) throw new Error(`no record for ${short}`);
  return JSON.parse(readFileSync(join(sessionsDir, name), "utf8")) as { status: string; detail: string };
}

describe("desktop notifications, live (dbus-daemon + dunst 1.9 under Xvfb, tmux 3.3a, xterm)", () => {
  it("an agent waiting in a pane nobody shows: one notification; its action lands the attached client on the exact pane", async () => {
    const agent = await agents.start(tmux, "work", "api");
    tmux.plainWindow("work", "NOT-THE-AGENT");
    const client = await attachInXterm("work");
    expect(tmux.clients()[0]?.pane).not.toBe(agent.pane);

    expect(await agents.emit(agent.sessionId, "permission-request")).toMatchObject({ status: 0 });
    const delivered = await logEntry((entry) => entry.outcome === "delivered", "the notifier to deliver");
    expect(delivered.deliveries).toEqual([
      {
        channel: "desktop",
        outcome: "delivered",
        // Focus, and Allow / Deny for its wait: a Claude Code session in tmux is one keys can answer (docs/answer.md).
        detail: expect.stringMatching(/^dunst 1\.9\.0 .* showed notification \d+ with 3 action/),
      },
      { channel: "terminal", outcome: "not-needed", detail: "the desktop notification reached the user" },
      { channel: "tmux", outcome: "delivered", detail: `message on ${client}` },
      { channel: "webhook", outcome: "unavailable", detail: "no webhook configured" },
      { channel: "bell", outcome: "not-needed", detail: "another channel reached the user" },
    ]);
    expect(desktop.displayed()).toBe(1);
    expect(alive(delivered.pid)).toBe(true);

    // A click: dunst invokes the notification's default action.
    expect(desktop.dunstctl("action", "0").status).toBe(0);
    const clicked = await logEntry((entry) => entry.result === "clicked", "the click to be handled");
    expect(clicked.focus).toMatchObject({
      state: "complete",
      backend: "tmux",
      target: expect.stringContaining(agent.pane),
      activation: { succeeded: true, detail: expect.stringContaining("raised X11 window") },
    });
    expect(tmux.clients()[0]?.pane).toBe(agent.pane);
    // Real keystrokes into the focused X window land in the agent's pane (the tty echoes them).
    const token = `tok${Math.random().toString(36).slice(2, 8)}`;
    x.type(token);
    await waitFor(() => tmux.capture(tmux.inner, agent.pane).includes(token), "the typed token in the agent's pane");
    await waitFor(() => !alive(delivered.pid), "the notifier to exit after the click", 15_000);

    desktop.closeAll();
    expect(desktop.history()).toEqual([
      { appname: "tongs-agents", summary: "Claude Code needs you: api", body: expect.stringContaining("permission: Bash") },
    ]);
  });

  it("no notification for the pane the attached client shows; one once the client shows another window", async () => {
    const agent = await agents.start(tmux, "work", "web");
    await attachInXterm("work");
    expect(tmux.clients()[0]?.pane).toBe(agent.pane);

    await agents.emit(agent.sessionId, "permission-request");
    const quiet = await logEntry((entry) => entry.mode === "deliver" && entry.outcome === "delivered", "the notifier to decide");
    expect(quiet.suppressed).toEqual([expect.stringContaining(`${agent.pane} is the active pane of client`)]);
    expect(quiet.deliveries).toEqual([]);
    desktop.closeAll();
    expect(desktop.history()).toEqual([]);

    tmux.plainWindow("work", "ELSEWHERE");
    await agents.emit(agent.sessionId, "tool-done");
    await agents.emit(agent.sessionId, "stop-failure");
    await nthDecision(sandbox.stateDir, 2);
    desktop.closeAll();
    expect(desktop.history().map((entry) => entry.summary)).toEqual(["Claude Code failed: web"]);
  });

  it("with focus-events on: the shown pane notifies once its terminal window loses the focus", async () => {
    const agent = await agents.start(tmux, "work", "focus");
    tmux.tmux(tmux.inner, "set", "-s", "focus-events", "on");
    await attachInXterm("work");
    expect(tmux.tmux(tmux.inner, "list-clients", "-F", "#{client_flags}").split(",")).toContain("focused");
    await agents.emit(agent.sessionId, "permission-request");
    const first = await logEntry((entry) => entry.outcome === "delivered", "the first decision");
    expect(first.suppressed).toEqual([expect.stringContaining("in a focused terminal window")]);

    // Another X window takes the input focus: xterm tells tmux (focus-out), and the same pane now notifies.
    const other = await x.xterm(["sleep", "600"]);
    focusXtermOf(other.pid);
    await waitFor(
      () => !tmux.tmux(tmux.inner, "list-clients", "-F", "#{client_flags}").split(",").includes("focused"),
      "tmux to see the client lose focus",
    );
    await agents.emit(agent.sessionId, "tool-done");
    await agents.emit(agent.sessionId, "permission-request");
    const second = await nthDecision(sandbox.stateDir, 2);
    expect(second.suppressed).toEqual([]);
    expect(second.deliveries?.[0]).toMatchObject({ channel: "desktop", outcome: "delivered" });
  });

  it("an agent directly in xterm: nothing while its window has the input focus; a notification once another has it", async () => {
    const { sessionId, argv } = agents.prepare("xterm-agent");
    const own = await x.xterm(argv);
    await agents.ready(sessionId);
    focusXtermOf(own.pid);
    await agents.emit(sessionId, "permission-request");
    const quiet = await logEntry((entry) => entry.outcome === "delivered", "the first decision");
    expect(quiet.suppressed).toEqual([expect.stringMatching(/X11 window 0x[0-9a-f]+ has focus$/)]);

    const other = await x.xterm(["sleep", "600"]);
    focusXtermOf(other.pid);
    await agents.emit(sessionId, "tool-done");
    await agents.emit(sessionId, "permission-request");
    const second = await nthDecision(sandbox.stateDir, 2);
    expect(second.suppressed).toEqual([]);
    expect(second.deliveries?.[0]).toMatchObject({ channel: "desktop", outcome: "delivered" });
  });

  it("five agents that start waiting together: one notification that names all five", async () => {
    const names = ["alpha", "bravo", "charlie", "delta", "echo"];
    const five = [];
    for (const name of names) five.push(await agents.start(tmux, "fleet", name));
    tmux.plainWindow("fleet", "NONE-OF-THEM");
    await attachInXterm("fleet");
    await Promise.all(five.map((agent) => agents.emit(agent.sessionId, "permission-request")));
    await waitFor(
      () => notifyLog(sandbox.stateDir).filter((entry) => entry.mode === "deliver").length === 5,
      "all five notifiers to finish or hand over",
      40_000,
    );
    const delivered = notifyLog(sandbox.stateDir).filter((entry) => entry.outcome === "delivered");
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.sessions).toHaveLength(5);
    desktop.closeAll();
    const history = desktop.history();
    expect(history).toHaveLength(1);
    expect(history[0]?.summary).toBe("5 agents need you");
    for (const name of names) expect(history[0]?.body).toContain(`${name} (Claude Code) waiting: permission: Bash`);
  });

  it("a hung notification daemon changes nothing for the agent and loses no event; the notifier gives up and exits", async () => {
    const agent = await agents.start(tmux, "work", "hung");
    tmux.plainWindow("work", "ELSEWHERE");
    const client = await attachInXterm("work");
    process.kill(desktop.dunstPid, "SIGSTOP");
    try {
      const hook = await agents.emit(agent.sessionId, "permission-request");
      expect(hook.status).toBe(0);
      const entry = await logEntry((line) => line.outcome === "delivered", "the notifier to give up on dunst");
      expect(entry.deliveries).toEqual([
        { channel: "desktop", outcome: "failed", detail: expect.stringContaining("did not answer GetServerInformation within 2000 ms") },
        { channel: "terminal", outcome: "unavailable", detail: expect.stringContaining("not known to show OSC notifications") },
        { channel: "tmux", outcome: "delivered", detail: `message on ${client}` },
        { channel: "webhook", outcome: "unavailable", detail: "no webhook configured" },
        { channel: "bell", outcome: "not-needed", detail: "another channel reached the user" },
      ]);
      await waitFor(() => !alive(entry.pid), "the notifier to exit", 15_000);
      // The record holds the event whatever the notifier did.
      expect(recordNamed(entry.sessions?.[0] as string)).toMatchObject({ status: "waiting", detail: "permission: Bash" });
    } finally {
      process.kill(desktop.dunstPid, "SIGCONT");
    }
  });

  it("no notification daemon at all: the tmux message reaches the client, which shows it in its status line", async () => {
    await desktop.stopDunst();
    const agent = await agents.start(tmux, "work", "nodaemon");
    tmux.tmux(tmux.inner, "set", "-g", "display-time", "10000");
    tmux.plainWindow("work", "ELSEWHERE");
    // A client inside an outer tmux: the outer pane shows exactly what the client draws.
    const client = await tmux.attach("work");
    await agents.emit(agent.sessionId, "stop-failure");
    const entry = await logEntry((line) => line.outcome === "delivered", "the notifier to decide");
    expect(entry.deliveries?.[0]).toEqual({
      channel: "desktop",
      outcome: "unavailable",
      detail: expect.stringContaining("no notification server on the session bus"),
    });
    expect(entry.deliveries?.[2]).toEqual({ channel: "tmux", outcome: "delivered", detail: `message on ${client.tty}` });
    await waitFor(
      () => tmux.seen(client).text.includes("tongs-agents: Claude Code failed: nodaemon"),
      "the message in the client's status line",
    );
    await waitFor(() => !alive(entry.pid), "the notifier to exit", 15_000);
  });

  it("the bell, when nothing else reaches the user: tmux flags the agent's window", async () => {
    await desktop.stopDunst();
    writeNotifyConfig(sandbox, { channels: { tmux: false } });
    const agent = await agents.start(tmux, "work", "bell");
    tmux.plainWindow("work", "ELSEWHERE");
    await tmux.attach("work");
    expect(tmux.tmux(tmux.inner, "display-message", "-p", "-t", agent.pane, "#{window_bell_flag}")).toBe("0");
    await agents.emit(agent.sessionId, "permission-request");
    const entry = await logEntry((line) => line.outcome === "delivered", "the notifier to decide");
    expect(entry.deliveries?.map((delivery) => `${delivery.channel}:${delivery.outcome}`)).toEqual([
      "desktop:unavailable",
      "terminal:unavailable",
      "tmux:off",
      "webhook:unavailable",
      "bell:delivered",
    ]);
    await waitFor(
      () => tmux.tmux(tmux.inner, "display-message", "-p", "-t", agent.pane, "#{window_bell_flag}") === "1",
      "tmux to flag the window's bell",
    );
  });
});
