// `tongs-agents notify [--test] [--json]`: the notification settings in force, and which channels can reach the user
// from this terminal; with --test, a test notification through each channel found (docs/notifications.md).
import { EXIT_CODES } from "../core/errors.ts";
import { type ChannelId, type NotifyState, NOTIFY_STATES, loadConfig } from "../notify/config.ts";
import type { Delivery, Detection, NotifyWorld } from "../notify/contract.ts";
import { channelsFor } from "../notify/deliver.ts";
import { testNotice } from "../notify/message.ts";
import { surveyPlaces } from "../notify/survey.ts";
import { realWorld } from "../notify/world.ts";
import { captureTerminal } from "../core/terminal.ts";
import type { CliContext } from "./context.ts";
import { fail, parse, type Verb } from "./io.ts";
import { withHelp, type VerbHelp } from "./help.ts";

export interface NotifyCheck {
  readonly config: {
    readonly path: string;
    readonly source: "file" | "defaults";
    readonly problem?: string;
    readonly quiet: boolean;
    readonly states: Readonly<Record<NotifyState, readonly ChannelId[]>>;
  };
  readonly channels: readonly Detection[];
  readonly test?: readonly Delivery[];
}

/** What can reach the user from here (this terminal), and with `test`, one notification through each channel found. */
export async function checkNotifications(
  context: CliContext,
  { test, world = realWorld(context.stateDir, { env: context.env }) }: { test: boolean; world?: NotifyWorld },
): Promise<NotifyCheck> {
  const loaded = loadConfig(context.env);
  const tty = (await context.processes.basics(process.pid))?.tty;
  const places = await surveyPlaces([{ id: "here", terminal: captureTerminal(context.env, { tty }) }], world);
  const channels = channelsFor(world.platform);
  const detections = await Promise.all(channels.map((channel) => channel.detect(places, world)));
  const config = {
    path: loaded.path,
    source: loaded.source,
    ...(loaded.problem ? { problem: loaded.problem } : {}),
    quiet: loaded.config.quiet,
    states: loaded.config.states,
  };
  if (!test) return { config, channels: detections };
  // A test is about reaching the user: every tmux client counts as not showing this pane, so each gets the message.
  const everywhere = places.map((place) => (place.kind === "tmux" ? { ...place, windowId: "" } : place));
  const deliveries: Delivery[] = [];
  for (const [index, channel] of channels.entries()) {
    if (!detections[index]?.available) continue;
    const sent = await channel.deliver(testNotice(channel.id), everywhere, world);
    await sent.pending?.close();
    deliveries.push({ channel: sent.channel, outcome: sent.outcome, detail: sent.detail });
  }
  return { config, channels: detections, test: deliveries };
}

export function formatNotifyCheck(check: NotifyCheck): string {
  const { config } = check;
  const used = config.source === "file" ? "" : config.problem ? " (not used: the defaults apply)" : " (none: the defaults apply)";
  const lines = [`notifications: ${config.quiet ? "quiet (nothing notifies)" : "on"}   config: ${config.path}${used}`];
  if (config.problem) lines.push(`  problem: ${config.problem}`);
  for (const state of NOTIFY_STATES)
    lines.push(`  ${state.padEnd(8)} ${config.states[state].length > 0 ? config.states[state].join(", ") : "off"}`);
  lines.push("channels from this terminal:");
  for (const detection of check.channels)
    lines.push(`  ${detection.channel.padEnd(9)}${detection.available ? "found    " : "not found"}  ${detection.detail}`);
  if (check.test) {
    lines.push("test notification:");
    if (check.test.length === 0) lines.push("  nothing sent: no channel found");
    for (const delivery of check.test) lines.push(`  ${delivery.channel.padEnd(9)}${delivery.outcome.padEnd(10)} ${delivery.detail}`);
  }
  return lines.join("\n");
}

const NOTIFY_HELP: VerbHelp = {
  usage: "notify [--test] [--json]",
  summary:
    "Which notification channels this terminal offers (desktop over D-Bus or macOS, the terminal's own OSC notification,\ntmux messages, the bell) and the configuration in force; --test sends one through each (docs/notifications.md).",
  options: [
    ["--test", "send a test notification through every channel found"],
    ["--json", "print the check as JSON"],
  ],
  examples: ["tongs-agents notify --test"],
};

export const notifyVerb: Verb = withHelp(NOTIFY_HELP, async (args, context, io) => {
  const parsed = parse(args, { test: { type: "boolean" }, json: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const check = await checkNotifications(context, { test: parsed.values.test === true });
  io.stdout(parsed.values.json === true ? JSON.stringify(check, null, 2) : formatNotifyCheck(check));
  return check.test && !check.test.some((delivery) => delivery.outcome === "delivered") ? EXIT_CODES.error : EXIT_CODES.ok;
});
