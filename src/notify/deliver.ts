// Who is told what, through which channel: sessions the user already looks at are dropped; the desktop notification
// goes first; the terminal's own notification only for sessions no desktop notification reached (so the same popup
// never shows twice); a tmux message on clients that do not show the pane; a bell only when nothing else reached the
// user. docs/notifications.md, "Channels".
import { bellChannel } from "./bell.ts";
import type { ChannelId, NotifyConfig, NotifyState } from "./config.ts";
import type { Delivery, Notice, NotifyChannel, NotifyWorld, PendingClick } from "./contract.ts";
import { desktopLinuxChannel } from "./desktop-linux.ts";
import { desktopMacosChannel } from "./desktop-macos.ts";
import { composeNotice, type NoticeInput } from "./message.ts";
import type { Place } from "./contract.ts";
import { onScreen, surveyPlaces, type SurveyedSession } from "./survey.ts";
import { terminalOscChannel } from "./terminal-osc.ts";
import { tmuxMessageChannel } from "./tmux-message.ts";
import { webhookChannel } from "./webhook.ts";
import { cleanLine } from "./sanitize.ts";

export function desktopChannelFor(platform: NodeJS.Platform): NotifyChannel {
  return platform === "darwin" ? desktopMacosChannel : desktopLinuxChannel;
}

/** The channels in the order they are tried. */
export function channelsFor(platform: NodeJS.Platform): readonly NotifyChannel[] {
  return [desktopChannelFor(platform), terminalOscChannel, tmuxMessageChannel, webhookChannel, bellChannel];
}

export type BatchSession = SurveyedSession &
  Omit<NoticeInput, "where"> & {
    readonly status: NotifyState;
    /** When the session entered this state (its record's status_changed_at). */
    readonly changedAt: string;
  };

export interface BatchReport {
  readonly notified: readonly string[];
  readonly suppressed: readonly { readonly id: string; readonly why: string }[];
  readonly deliveries: readonly Delivery[];
  /** A desktop notification that can still be clicked, and the notice it shows. */
  readonly pending?: { readonly click: PendingClick; readonly notice: Notice };
}

export async function deliverBatch(
  sessions: readonly BatchSession[],
  config: NotifyConfig,
  world: NotifyWorld,
  channels: readonly NotifyChannel[] = channelsFor(world.platform),
): Promise<BatchReport> {
  const places = await surveyPlaces(sessions, world);
  const suppressed: { id: string; why: string }[] = [];
  const kept: { session: BatchSession; place: Place }[] = [];
  sessions.forEach((session, index) => {
    const place = places[index] as Place;
    const seen = onScreen(place);
    if (seen.onScreen) suppressed.push({ id: session.id, why: seen.why });
    else kept.push({ session, place });
  });
  const deliveries: Delivery[] = [];
  if (kept.length === 0) return { notified: [], suppressed, deliveries };
  const reached = new Set<string>();
  let pending: BatchReport["pending"];
  const send = async (channel: NotifyChannel, wanted: (entry: (typeof kept)[number]) => boolean, whyNot: string): Promise<void> => {
    const enabled = kept.filter((entry) => config.states[entry.session.status].includes(channel.id as ChannelId));
    const chosen = enabled.filter(wanted);
    if (chosen.length === 0) {
      deliveries.push(
        enabled.length === 0
          ? { channel: channel.id, outcome: "off", detail: "off for these states (config)" }
          : { channel: channel.id, outcome: "not-needed", detail: whyNot },
      );
      return;
    }
    const notice = composeNotice(chosen.map(({ session, place }) => ({ ...session, where: place.where })));
    const delivery = await channel.deliver(
      notice,
      chosen.map((entry) => entry.place),
      world,
    );
    deliveries.push({ channel: delivery.channel, outcome: delivery.outcome, detail: delivery.detail });
    if (delivery.outcome === "delivered") for (const entry of chosen) reached.add(entry.session.id);
    if (delivery.pending) pending = { click: delivery.pending, notice };
  };
  const desktopReached = new Set<string>();
  for (const channel of channels) {
    if (channel.id === "desktop") {
      await send(channel, () => true, "");
      for (const id of reached) desktopReached.add(id);
    } else if (channel.id === "terminal")
      await send(channel, (entry) => !desktopReached.has(entry.session.id), "the desktop notification reached the user");
    else if (channel.id === "bell") await send(channel, (entry) => !reached.has(entry.session.id), "another channel reached the user");
    else await send(channel, () => true, "");
  }
  return { notified: kept.map((entry) => entry.session.id), suppressed, deliveries, ...(pending ? { pending } : {}) };
}

/** What notify.log says of a batch's deliveries (never a URL or agent text raw: details are cleaned and cut). */
export function deliveryLog(report: BatchReport): { deliveries: Record<string, string>[]; click: "waiting" | "none" } {
  return {
    deliveries: report.deliveries.map((delivery) => ({
      channel: delivery.channel,
      outcome: delivery.outcome,
      detail: cleanLine(delivery.detail, 200),
    })),
    click: report.pending ? "waiting" : "none",
  };
}
