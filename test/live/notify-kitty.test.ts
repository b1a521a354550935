// Live: the terminal's own notification. kitty 0.26.5 under Xvfb turns OSC 99 into a desktop notification on its
// session bus, where dunst receives it (appname "kitty"): through tmux passthrough from a tmux client in kitty, and
// written directly to the tty of an agent in a kitty window. The notifier's own desktop channel is off in these tests,
// so what dunst shows came through the terminal.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../sandbox.ts";
import { KittyLab } from "./kitty-lab.ts";
import { closeNotifyLab, nthDecision, openNotifyLab, type NotifyDesktop, type NotifyLab, type TriggeredAgents } from "./notify-lab.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";

let lab: NotifyLab;
let sandbox: Sandbox;
let desktop: NotifyDesktop;
let kitty: KittyLab;
let tmux: TmuxLab | undefined;
let agents: TriggeredAgents;

beforeEach(async () => {
  // The notifier's own desktop channel is off: what dunst shows came through kitty.
  lab = await openNotifyLab({ channels: { desktop: false } });
  ({ sandbox, desktop, agents } = lab);
  kitty = await new KittyLab(lab.x, sandbox).start();
});

afterEach(() =>
  closeNotifyLab(lab, async () => {
    await kitty.stop();
    tmux?.stop();
    tmux = undefined;
  }),
);

const decided = (count: number) => nthDecision(sandbox.stateDir, count);

/** What dunst received from kitty (closing everything first moves it to dunst's history). */
async function fromKitty(count: number) {
  await waitFor(() => desktop.displayed() >= count, "kitty's notification to reach dunst", 20_000);
  desktop.closeAll();
  return desktop.history().filter((entry) => entry.appname === "kitty");
}

describe("terminal notifications, live (kitty 0.26.5 under Xvfb, dbus-daemon + dunst 1.9, tmux 3.3a)", () => {
  it("tmux inside kitty: OSC 99 through tmux passthrough, from a window the client does not show", async () => {
    tmux = new TmuxLab(sandbox);
    const agent = await agents.start(tmux, "work", "api");
    tmux.tmux(tmux.inner, "set", "-g", "allow-passthrough", "on");
    tmux.plainWindow("work", "NOT-THE-AGENT");
    await kitty.launch(["env", "-u", "TMUX", "tmux", "-S", tmux.inner, "attach", "-t", "work"], "os-window");
    await waitFor(() => tmux?.clients().length === 1, "the tmux client in kitty to attach");
    const client = tmux.clients()[0];
    expect(client?.pane).not.toBe(agent.pane);

    await agents.emit(agent.sessionId, "permission-request");
    const entry = await decided(1);
    expect(entry.deliveries?.[0]).toEqual({ channel: "desktop", outcome: "off", detail: "off for these states (config)" });
    expect(entry.deliveries?.[1]).toEqual({
      channel: "terminal",
      outcome: "delivered",
      detail: `OSC 99 to client ${client?.tty} (kitty) through pane ${client?.pane}`,
    });
    expect(await fromKitty(1)).toEqual([
      { appname: "kitty", summary: "Claude Code needs you: api", body: expect.stringContaining("permission: Bash") },
    ]);
  });

  it("tmux with allow-passthrough off: says so, and the tmux message still goes out", async () => {
    tmux = new TmuxLab(sandbox);
    const agent = await agents.start(tmux, "work", "web");
    tmux.plainWindow("work", "NOT-THE-AGENT");
    await kitty.launch(["env", "-u", "TMUX", "tmux", "-S", tmux.inner, "attach", "-t", "work"], "os-window");
    await waitFor(() => tmux?.clients().length === 1, "the tmux client in kitty to attach");
    await agents.emit(agent.sessionId, "stop-failure");
    const entry = await decided(1);
    expect(entry.deliveries?.[1]).toMatchObject({
      channel: "terminal",
      outcome: "unavailable",
      detail: expect.stringContaining("allow-passthrough off"),
    });
    expect(entry.deliveries?.[2]).toMatchObject({ channel: "tmux", outcome: "delivered" });
  });

  it("an agent directly in kitty: OSC 99 to its tty while another window has the focus; nothing while its own has", async () => {
    const { sessionId, argv } = agents.prepare("cli");
    const window = await kitty.launch(argv, "os-window");
    await agents.ready(sessionId);
    // Its own window has the focus (kitty focuses a new OS window): no notification.
    await agents.emit(sessionId, "permission-request");
    const quiet = await decided(1);
    expect(quiet.suppressed).toEqual([expect.stringContaining(`kitty window ${window} has focus`)]);

    // Another OS window takes the focus; the same agent waits again: kitty shows the notification.
    await kitty.launch(["sleep", "600"], "os-window");
    await agents.emit(sessionId, "tool-done");
    await agents.emit(sessionId, "permission-request");
    const entry = await decided(2);
    expect(entry.suppressed).toEqual([]);
    expect(entry.deliveries?.[1]).toMatchObject({
      channel: "terminal",
      outcome: "delivered",
      detail: expect.stringMatching(new RegExp(`^OSC 99 to kitty window ${window} \\(kitty\\)$`)),
    });
    expect(await fromKitty(1)).toEqual([
      { appname: "kitty", summary: "Claude Code needs you: cli", body: expect.stringContaining("permission: Bash") },
    ]);
  });
});
