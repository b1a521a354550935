// The contract between the notifier (deliver.ts) and its channels (desktop, terminal, tmux, bell), as backends/contract.ts
// is for terminal backends: each channel says whether it can reach the user from here, and delivers one notice.
// docs/notifications.md explains each channel.
import type { Runner } from "../core/exec.ts";
import type { ChannelId, NotifyState } from "./config.ts";
import type { TtyWrite } from "./tty.ts";
import type { TmuxServerView } from "../../backends/tmux/survey.ts";

/** Where a session's terminal is (survey.ts finds it), as the channels see it. */
export type Place =
  | {
      readonly kind: "tmux";
      readonly sessionId: string;
      readonly server: TmuxServerView;
      readonly pane: string;
      readonly paneTty: string;
      readonly windowId: string;
      readonly zoomed: boolean;
      readonly where: string;
    }
  | {
      readonly kind: "terminal";
      readonly sessionId: string;
      readonly tty: string | undefined;
      readonly env: Readonly<Record<string, string>>;
      /** Does the session's terminal window have focus? undefined when that cannot be known. */
      readonly focused: boolean | undefined;
      readonly where: string;
    }
  | { readonly kind: "unknown"; readonly sessionId: string; readonly where: string };

export type Urgency = "low" | "normal" | "critical";

/** One session a notice is about: what a click focuses. */
export interface NoticeSession {
  readonly id: string;
  /** Short words for an action button: `api (Claude Code)`. */
  readonly label: string;
  /** What a webhook posts about it (webhook.ts); absent in a test notice. */
  readonly facts?: SessionFacts;
  /** The open wait a notification's Allow / Deny answer, when keys can answer it where it runs (src/answer/). */
  readonly wait?: string;
}

/** One session's change as a webhook's JSON body gives it (the host is added by the channel). */
export interface SessionFacts {
  /** A session on an SSH host: that host's name and the session's id there (a webhook names them). */
  readonly host?: string;
  readonly session?: string;
  readonly agent: string;
  readonly state: NotifyState;
  readonly detail: string;
  readonly directory: string;
}

/** What a channel sends: already cleaned (sanitize.ts); each channel escapes it for its own medium. */
export interface Notice {
  readonly title: string;
  readonly lines: readonly string[];
  /** Title and first line on one line, for a status line or a terminal that shows only one string. */
  readonly oneLine: string;
  readonly urgency: Urgency;
  readonly sessions: readonly NoticeSession[];
}

/** The world a channel reaches, injected so tests need no global patching. */
export interface NotifyWorld {
  /** The notifier's environment: the agent's, inherited through the hook (DBUS_SESSION_BUS_ADDRESS, DISPLAY, ...). */
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  readonly run: Runner;
  readonly stateDir: string;
  readonly writeTty: (path: string, data: string) => TtyWrite;
  /** Environment of another process (a tmux client), to tell which terminal it runs in. */
  readonly environOf: (pid: number) => Promise<Record<string, string> | undefined>;
  /** How a click on a macOS notification runs the notifier again (terminal-notifier's -execute). */
  readonly clickCommand: ((sessionId: string) => readonly string[]) | undefined;
  /** HTTP for the webhooks (default: Node's fetch); tests give a server on 127.0.0.1 through the real one. */
  readonly fetch?: typeof fetch;
}

export type Outcome = "delivered" | "failed" | "unavailable" | "not-needed" | "off";

export interface Delivery {
  readonly channel: ChannelId;
  readonly outcome: Outcome;
  readonly detail: string;
}

/** What happened to a desktop notification after it was shown. */
export type ClickOutcome =
  | { readonly kind: "clicked"; readonly sessionId: string }
  /** Allow or Deny was chosen: answer that wait of that session, or nothing. */
  | { readonly kind: "reply"; readonly sessionId: string; readonly wait: string; readonly reply: "allow" | "deny" }
  | { readonly kind: "closed"; readonly detail: string }
  | { readonly kind: "gave-up"; readonly detail: string };

/** A shown notification whose click can still come: wait for it (bounded), then stop listening. */
export interface PendingClick {
  wait(options: { readonly timeoutMs: number; readonly stillWanted: () => boolean; readonly checkEveryMs?: number }): Promise<ClickOutcome>;
  /** Replace it with a follow-up (what the click's focus did), or withdraw it. */
  close(): Promise<void>;
}

export interface Detection {
  readonly channel: ChannelId;
  readonly available: boolean;
  readonly detail: string;
}

export interface NotifyChannel {
  readonly id: ChannelId;
  /** Could this channel reach the user for sessions in `places`? Cheap, sends nothing. */
  detect(places: readonly Place[], world: NotifyWorld): Promise<Detection>;
  deliver(notice: Notice, places: readonly Place[], world: NotifyWorld): Promise<Delivery & { readonly pending?: PendingClick }>;
}
