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
import { fail, parse, type Verb, type VerbIo } from "./io.ts";
import type { Failure } from "../core/errors.ts";
import { describeMute, mute, muteState, parseDuration, unmute, type MuteState } from "../notify/mute.ts";
import { addWebhook, loadWebhooks, looksLikeNtfy, openModeOf, removeWebhook } from "../notify/webhooks.ts";
import { describeWebhook } from "../notify/webhook.ts";
import { hostChanges } from "../notify/host-changes.ts";
import { quoted } from "../core/terminal-text.ts";
import { didYouMean } from "../core/suggest.ts";
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
  readonly mute: MuteState;
  /** The webhooks, each shown as `N. scheme://host/…` (never the whole URL), and a file open to others. */
  readonly webhooks: { readonly path: string; readonly shown: readonly string[]; readonly problem?: string };
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
  const hooks = loadWebhooks(context.env);
  const open = hooks.kind === "ok" && hooks.webhooks.length > 0 ? openModeOf(hooks.path) : undefined;
  const webhooks = {
    path: hooks.path,
    shown: hooks.kind === "ok" ? hooks.webhooks.map(describeWebhook) : [],
    ...(hooks.kind === "invalid"
      ? { problem: hooks.detail }
      : open
        ? { problem: `${hooks.path} has mode ${open}, open to others: chmod 600 it` }
        : {}),
  };
  const muted = muteState(context.stateDir, context.now());
  if (!test) return { config, channels: detections, mute: muted, webhooks };
  // A test is about reaching the user: every tmux client counts as not showing this pane, so each gets the message.
  const everywhere = places.map((place) => (place.kind === "tmux" ? { ...place, windowId: "" } : place));
  const deliveries: Delivery[] = [];
  for (const [index, channel] of channels.entries()) {
    if (!detections[index]?.available) continue;
    const sent = await channel.deliver(testNotice(channel.id), everywhere, world);
    await sent.pending?.close();
    deliveries.push({ channel: sent.channel, outcome: sent.outcome, detail: sent.detail });
  }
  return { config, channels: detections, mute: muted, webhooks, test: deliveries };
}

export function formatNotifyCheck(check: NotifyCheck, now: number): string {
  const { config } = check;
  const used = config.source === "file" ? "" : config.problem ? " (not used: the defaults apply)" : " (none: the defaults apply)";
  const state = config.quiet ? "quiet (nothing notifies)" : check.mute.muted ? describeMute(check.mute, now) : "on";
  const lines = [`notifications: ${state}   config: ${config.path}${used}`];
  if (config.problem) lines.push(`  problem: ${config.problem}`);
  for (const state of NOTIFY_STATES)
    lines.push(`  ${state.padEnd(8)} ${config.states[state].length > 0 ? config.states[state].join(", ") : "off"}`);
  if (check.webhooks.shown.length > 0) lines.push(`webhooks (${check.webhooks.path}):`, ...check.webhooks.shown.map((hook) => `  ${hook}`));
  if (check.webhooks.problem) lines.push(`  problem: ${check.webhooks.problem}`);
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
  usage:
    "notify [--test] [--json] | notify mute [DURATION] | notify unmute | notify webhook add URL [--ntfy] [--click URL] | notify webhook remove N | notify changes --json",
  summary:
    "Which notification channels this terminal offers (desktop over D-Bus or macOS, the terminal's own OSC notification,\ntmux messages, webhooks, the bell), the configuration in force and whether it is muted; --test sends one through\neach (docs/notifications.md). mute silences every channel for DURATION (30m, 2h, 1h30m; none: until unmute).\nwebhook add posts each change to URL (JSON, or an ntfy topic with ntfy's headers); the URL is kept in a 0600 file\nand only ever shown as its scheme and host.",
  options: [
    ["--test", "send a test notification through every channel found"],
    ["--json", "print the check as JSON"],
    ["mute [DURATION]", "send nothing on any channel for DURATION (90s, 30m, 2h, 1d; a number is minutes), or until unmute"],
    ["unmute", "end the mute"],
    ["webhook add URL", "post to URL when an agent starts waiting or fails (ntfy.sh topics are known as ntfy)"],
    ["--ntfy", "URL is a topic on a self-hosted ntfy server"],
    ["--click URL", "ntfy: the URL a tap on the phone's notification opens"],
    ["webhook remove N", "remove the webhook numbered N in `tongs-agents notify`"],
    ["changes --json", "the sessions here that may notify, and whether you look at them (what a host tells the keypress server)"],
  ],
  examples: [
    "tongs-agents notify --test",
    "tongs-agents notify mute 1h",
    "tongs-agents notify webhook add https://ntfy.sh/my-secret-topic",
  ],
  subcommands: { mute: [], unmute: [], webhook: ["add", "remove"], changes: [] },
};

export const notifyVerb: Verb = withHelp(NOTIFY_HELP, async (args, context, io) => {
  const parsed = parse(
    args,
    { test: { type: "boolean" }, json: { type: "boolean" }, ntfy: { type: "boolean" }, click: { type: "string" } },
    "any",
  );
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const [action, ...rest] = parsed.positionals;
  const only = (what: string, ...flags: string[]): Failure | undefined => {
    const extra = ["test", "ntfy", "click"].filter((flag) => !flags.includes(flag) && parsed.values[flag] !== undefined);
    return extra.length > 0 ? { ok: false, reason: "usage", detail: `${what} does not take --${extra[0]}` } : undefined;
  };
  const usage = (detail: string): Failure => ({ ok: false, reason: "usage", detail });
  const done = (value: unknown, text: string) => {
    io.stdout(json ? JSON.stringify(value, null, 2) : text);
    return EXIT_CODES.ok;
  };
  switch (action) {
    case undefined: {
      const wrong = only("notify", "test");
      if (wrong) return fail(wrong, io, json);
      const check = await checkNotifications(context, { test: parsed.values.test === true });
      io.stdout(json ? JSON.stringify(check, null, 2) : formatNotifyCheck(check, context.now()));
      return check.test && !check.test.some((delivery) => delivery.outcome === "delivered") ? EXIT_CODES.error : EXIT_CODES.ok;
    }
    case "mute": {
      const wrong = only("notify mute") ?? (rest.length > 1 ? usage("notify mute takes one DURATION at most") : undefined);
      if (wrong) return fail(wrong, io, json);
      const ms = rest[0] === undefined ? undefined : parseDuration(rest[0]);
      if (rest[0] !== undefined && ms === undefined)
        return fail(usage(`not a duration: ${quoted(rest[0])} (use e.g. 90s, 30m, 2h, 1h30m, 1d; at most 30d)`), io, json);
      const muted = mute(context.stateDir, context.now(), ms);
      if (!muted.ok) return fail({ ok: false, reason: "state-dir", detail: muted.detail }, io, json);
      return done({ mute: muted.state }, `notifications: ${describeMute(muted.state, context.now())}`);
    }
    case "unmute": {
      const wrong = only("notify unmute") ?? (rest.length > 0 ? usage("notify unmute takes no argument") : undefined);
      if (wrong) return fail(wrong, io, json);
      unmute(context.stateDir);
      return done({ mute: { muted: false } }, "notifications: on (not muted)");
    }
    case "webhook":
      return webhookCommand(rest, parsed.values, context, io, json);
    case "changes": {
      // Read by the user's machine over ssh (src/notify/hosts-watch.ts): JSON only.
      const wrong =
        only("notify changes") ??
        (rest.length > 0 ? usage("notify changes takes no argument") : !json ? usage("notify changes takes --json") : undefined);
      if (wrong) return fail(wrong, io, json);
      const changes = await hostChanges(context);
      if (changes.problem) return fail({ ok: false, reason: "state-dir", detail: changes.problem }, io, json);
      return done({ sessions: changes.sessions }, "");
    }
    default:
      return fail(
        usage(`unknown notify command ${quoted(action)}${didYouMean(action, ["mute", "unmute", "webhook", "changes"])}`),
        io,
        json,
      );
  }
});

async function webhookCommand(
  words: readonly string[],
  values: Record<string, unknown>,
  context: CliContext,
  io: VerbIo,
  json: boolean,
): Promise<number> {
  const [what, argument, ...more] = words;
  const usage = (detail: string): Failure => ({ ok: false, reason: "usage", detail });
  if (values.test !== undefined) return fail(usage("notify webhook does not take --test"), io, json);
  if (what === "add") {
    if (argument === undefined || more.length > 0) return fail(usage("notify webhook add takes one URL"), io, json);
    const click = typeof values.click === "string" ? values.click : undefined;
    const hook = { url: argument, ntfy: values.ntfy === true || looksLikeNtfy(argument), ...(click ? { click } : {}) };
    if (click && !hook.ntfy) return fail(usage("--click is ntfy's: give --ntfy for a self-hosted ntfy topic"), io, json);
    const added = addWebhook(context.env, hook);
    // The URL is never echoed: a mistake is said without it.
    if (!added.ok) return fail({ ok: false, reason: "config", detail: `webhook not added: ${added.detail}` }, io, json);
    const shown = describeWebhook(hook, added.index - 1);
    io.stdout(json ? JSON.stringify({ added: shown }) : `added webhook ${shown}; \`tongs-agents notify --test\` sends a test`);
    return EXIT_CODES.ok;
  }
  if (what === "remove") {
    if (values.ntfy !== undefined || values.click !== undefined) return fail(usage("notify webhook remove takes only N"), io, json);
    const index = argument !== undefined && /^\d{1,2}$/.test(argument) ? Number(argument) : undefined;
    if (index === undefined || more.length > 0) return fail(usage("notify webhook remove takes the number `notify` shows"), io, json);
    const removed = removeWebhook(context.env, index);
    if (!removed.ok) return fail({ ok: false, reason: "config", detail: removed.detail }, io, json);
    const shown = describeWebhook(removed.removed);
    io.stdout(json ? JSON.stringify({ removed: shown }) : `removed webhook ${shown}`);
    return EXIT_CODES.ok;
  }
  return fail(
    usage(
      `notify webhook takes add URL or remove N${what === undefined ? "" : `, not ${quoted(what)}${didYouMean(what, ["add", "remove"])}`}`,
    ),
    io,
    json,
  );
}
