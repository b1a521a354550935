// The desktop notification on macOS: terminal-notifier when it is on PATH (its -execute runs the notifier again on a
// click, which focuses the session), else osascript's `display notification` (no click: macOS opens Script Editor
// for a notification that AppleScript posted). Text is passed as arguments (osascript: `on run argv`, after a fixed
// first argument so none can be read as an option; terminal-notifier: the message on stdin), never spliced into a
// script. MOCKED: macOS cannot run here (docs/notifications.md, "Desktop").
import { shellCommand } from "../core/shell-quote.ts";
import { runAppleScript } from "../../backends/applescript/osascript.ts";
import { shortId } from "../core/identity.ts";
import { which } from "../install/context.ts";
import type { ChannelId } from "./config.ts";
import type { Delivery, Notice, NotifyChannel, NotifyWorld } from "./contract.ts";

const ID: ChannelId = "desktop";

/**
 * `display notification`, with its text from argv: item 1 is a fixed word that starts with no `-` (so osascript's
 * option parsing stops before the text, whatever the text starts with), then title, body, and "1" for a sound.
 */
export const ARGV_MARKER = "argv:";

export const DISPLAY_NOTIFICATION = `-- tongs-agents notify
on run argv
	set theTitle to item 2 of argv
	set theBody to item 3 of argv
	if item 4 of argv is "1" then
		display notification theBody with title theTitle subtitle "tongs-agents" sound name "Glass"
	else
		display notification theBody with title theTitle subtitle "tongs-agents"
	end if
end run`;

/**
 * terminal-notifier reads its options through NSUserDefaults, which parses a value that looks like a property list
 * (`(a, b)`, `{...}`, `<...>`) as one, and then strips one leading backslash from every string ("the first
 * character of a message has to be escaped", from its help text). A backslash in front of every value keeps each one a literal string.
 */
function optionValue(text: string): string {
  return `\\${text}`;
}

export function terminalNotifierArgs(notice: Notice, clickCommand: readonly string[] | undefined): string[] {
  const args = [
    "-title",
    optionValue(notice.title),
    "-subtitle",
    "tongs-agents",
    "-group",
    `tongs-agents-${notice.sessions[0] ? shortId(notice.sessions[0].id) : "test"}`,
  ];
  if (notice.urgency === "critical") args.push("-sound", "Glass");
  if (clickCommand) args.push("-execute", optionValue(shellCommand(clickCommand)));
  return args;
}

async function deliverWithTerminalNotifier(path: string, notice: Notice, world: NotifyWorld): Promise<Delivery> {
  const first = notice.sessions[0];
  const click = first ? world.clickCommand?.(first.id) : undefined;
  // The message goes on stdin: terminal-notifier reads it from there when -message is absent, whatever it starts with.
  const result = await world.run(path, terminalNotifierArgs(notice, click), { input: notice.lines.join("\n") || " " });
  if (result.ok)
    return {
      channel: ID,
      outcome: "delivered",
      detail: `terminal-notifier showed it${click ? "; a click runs the notifier, which focuses the session" : ""}`,
    };
  return {
    channel: ID,
    outcome: "failed",
    detail: `terminal-notifier failed: ${result.stderr.trim() || result.failure || `exit ${result.code}`}`,
  };
}

export const desktopMacosChannel = {
  id: ID,
  async detect(_places, world) {
    if (world.platform !== "darwin") return { channel: ID, available: false, detail: "not macOS" };
    const notifier = which("terminal-notifier", world.env);
    if (notifier) return { channel: ID, available: true, detail: `terminal-notifier (${notifier}); a click focuses the session` };
    if (which("osascript", world.env))
      return {
        channel: ID,
        available: true,
        detail: "osascript display notification (install terminal-notifier for a click that focuses the session)",
      };
    return { channel: ID, available: false, detail: "neither terminal-notifier nor osascript is on PATH" };
  },
  async deliver(notice, _places, world) {
    if (world.platform !== "darwin") return { channel: ID, outcome: "unavailable", detail: "not macOS" };
    const notifier = which("terminal-notifier", world.env);
    if (notifier) return deliverWithTerminalNotifier(notifier, notice, world);
    const result = await runAppleScript(world, "osascript", DISPLAY_NOTIFICATION, [
      ARGV_MARKER,
      notice.title,
      notice.lines.join("\n"),
      notice.urgency === "critical" ? "1" : "0",
    ]);
    if (result.ok) return { channel: ID, outcome: "delivered", detail: "osascript display notification (no click action)" };
    return { channel: ID, outcome: result.reason === "no-osascript" ? "unavailable" : "failed", detail: result.detail };
  },
} satisfies NotifyChannel;
