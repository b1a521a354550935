// The notification settings in $XDG_CONFIG_HOME/tongs-agents/config.json (docs/notifications.md, "Configuration"):
// which states notify, through which channels, and a quiet switch. Read by the detached notifier and by
// `tongs-agents notify`, never by the hook. A missing file means the defaults; a file that does not parse or does not
// fit the schema also means the defaults, and the problem is logged and shown by `tongs-agents notify`. The file itself
// is read by src/core/config-file.ts, which it shares with declared agents ("agents").
import * as z from "zod/mini";
import { CONFIG_SECTIONS, readConfigFile } from "../core/config-file.ts";
import { describeIssue } from "../core/schema.ts";
import { quoted } from "../core/terminal-text.ts";

/** States that can notify: the user is needed (waiting), a turn failed (error), a turn finished (idle). */
export const NOTIFY_STATES = ["waiting", "error", "idle"] as const;
export type NotifyState = (typeof NOTIFY_STATES)[number];

/** In the order they are tried (deliver.ts): the bell only when none of the others reached the user. */
export const CHANNEL_IDS = ["desktop", "terminal", "tmux", "webhook", "bell"] as const;
export type ChannelId = (typeof CHANNEL_IDS)[number];

const ChannelName = z.enum(CHANNEL_IDS);
/** `true`: every enabled channel; `false`: none; a list: those channels only. */
const StateSetting = z.union([z.boolean(), z.array(ChannelName).check(z.maxLength(CHANNEL_IDS.length))]);

const NotificationsSchema = z.strictObject({
  quiet: z.optional(z.boolean()),
  states: z.optional(
    z.strictObject({ waiting: z.optional(StateSetting), error: z.optional(StateSetting), idle: z.optional(StateSetting) }),
  ),
  channels: z.optional(
    z.strictObject({
      desktop: z.optional(z.boolean()),
      terminal: z.optional(z.boolean()),
      tmux: z.optional(z.boolean()),
      webhook: z.optional(z.boolean()),
      bell: z.optional(z.boolean()),
    }),
  ),
  click_wait_seconds: z.optional(z.int().check(z.gte(0), z.lte(24 * 60 * 60))),
  /** Notify once when a quota window a harness states reaches this percent (store/quota-crossing.ts reads it). */
  quota_percent: z.optional(z.number().check(z.gt(0), z.lte(100))),
  /** How often the keypress server asks each SSH host for its changes (hosts-watch.ts). */
  hosts_poll_seconds: z.optional(z.number().check(z.gte(2), z.lte(3600))),
});

const NotificationsSection = z.object({ notifications: z.optional(NotificationsSchema) });

export interface NotifyConfig {
  /** Nothing notifies. */
  readonly quiet: boolean;
  /** For each state, the channels it may use (empty: the state does not notify). */
  readonly states: Readonly<Record<NotifyState, readonly ChannelId[]>>;
  /** How long a desktop notification's click is waited for (the notifier then exits). */
  readonly clickWaitMs: number;
  /** How often the keypress server asks each SSH host for its changes (an unreachable host: less often). */
  readonly hostsPollMs: number;
}

export const DEFAULT_CONFIG: NotifyConfig = {
  quiet: false,
  states: { waiting: CHANNEL_IDS, error: CHANNEL_IDS, idle: [] },
  clickWaitMs: 600_000,
  hostsPollMs: 15_000,
};

export interface ConfigLoad {
  readonly config: NotifyConfig;
  readonly path: string;
  readonly source: "file" | "defaults";
  /** Why the file was not used, when it exists but is not valid. */
  readonly problem?: string;
}

export function loadConfig(env: NodeJS.ProcessEnv): ConfigLoad {
  const file = readConfigFile(env);
  const path = file.path;
  if (file.kind === "absent") return { config: DEFAULT_CONFIG, path, source: "defaults" };
  if (file.kind === "invalid") return { config: DEFAULT_CONFIG, path, source: "defaults", problem: `${file.detail}; using the defaults` };
  const defaults = (detail: string): ConfigLoad => ({
    config: DEFAULT_CONFIG,
    path,
    source: "defaults",
    problem: `${path}: ${detail}; using the defaults`,
  });
  // An unknown top-level key is most likely a misspelt "notifications": better said than silently ignored.
  if (file.unknownKeys.length > 0) return defaults(`unknown key ${quoted(file.unknownKeys[0])} (allowed: ${CONFIG_SECTIONS.join(", ")})`);
  // Written by hand: a mistake is named with the value found and what is allowed.
  const section = { notifications: file.sections.notifications };
  const parsed = NotificationsSection.safeParse(section);
  if (!parsed.success) return defaults(describeIssue(parsed.error, section, NotificationsSection));
  const settings = parsed.data.notifications ?? {};
  const channelOn = (channel: ChannelId) => settings.channels?.[channel] ?? true;
  const channelsOf = (state: NotifyState): ChannelId[] => {
    const setting = settings.states?.[state] ?? DEFAULT_CONFIG.states[state];
    const wanted = setting === true ? CHANNEL_IDS : setting === false ? [] : setting;
    return CHANNEL_IDS.filter((channel) => wanted.includes(channel) && channelOn(channel));
  };
  return {
    config: {
      quiet: settings.quiet ?? false,
      states: { waiting: channelsOf("waiting"), error: channelsOf("error"), idle: channelsOf("idle") },
      clickWaitMs: (settings.click_wait_seconds ?? DEFAULT_CONFIG.clickWaitMs / 1000) * 1000,
      hostsPollMs: (settings.hosts_poll_seconds ?? DEFAULT_CONFIG.hostsPollMs / 1000) * 1000,
    },
    path,
    source: "file",
  };
}

export function isNotifyState(status: string): status is NotifyState {
  return (NOTIFY_STATES as readonly string[]).includes(status);
}
