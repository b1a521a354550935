// The terminal's own notification: an OSC escape sequence the outer terminal turns into a desktop notification, so it
// also works over SSH and inside containers (docs/notifications.md, "Terminal"). kitty gets OSC 99 with base64 text
// (e=1: no byte of the text is ever in the sequence), WezTerm, Ghostty and foot OSC 777, iTerm2 OSC 9.
// Inside tmux the sequence is wrapped for passthrough (`ESC P tmux; ... ESC \`, every ESC inside doubled) and written
// to the tty of the pane each attached client shows: tmux 3.3 passes it on only from a visible pane, and only with
// `allow-passthrough on`. Outside tmux it is written to the session's own tty.
import { randomBytes } from "node:crypto";
import type { ChannelId } from "./config.ts";
import type { Notice, NotifyChannel, NotifyWorld } from "./contract.ts";
import { osc9Text, oscField } from "./sanitize.ts";
import type { TmuxClientView } from "../../backends/tmux/survey.ts";
import type { Place } from "./contract.ts";

const ID: ChannelId = "terminal";
const ESC = "\x1b";
const ST = `${ESC}\\`;
const BEL = "\x07";

export type TerminalKind = "kitty" | "wezterm" | "ghostty" | "foot" | "iterm2";

/** Which terminal an environment (and, for a tmux client, its TERM) belongs to; undefined when not one we know speaks OSC notifications. */
export function terminalKind(env: Readonly<Record<string, string | undefined>>, termname = ""): TerminalKind | undefined {
  if (env.KITTY_WINDOW_ID || termname === "xterm-kitty") return "kitty";
  if (env.WEZTERM_PANE || env.TERM_PROGRAM === "WezTerm" || termname === "wezterm") return "wezterm";
  if (env.TERM_PROGRAM === "ghostty" || termname === "xterm-ghostty") return "ghostty";
  if (env.TERM_PROGRAM === "iTerm.app") return "iterm2";
  if (/^foot(-|$)/.test(termname)) return "foot";
  return undefined;
}

export function oscCodeOf(kind: TerminalKind): 9 | 99 | 777 {
  return kind === "kitty" ? 99 : kind === "iterm2" ? 9 : 777;
}

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** The notification sequence for `kind`. Its text is already clean (no control characters); each code adds its own escaping. */
export function oscNotification(kind: TerminalKind, notice: Notice, id: string = randomBytes(6).toString("hex")): string {
  switch (oscCodeOf(kind)) {
    case 99:
      // Title, then body, as two chunks of one notification (d=0: more follows). A click focuses kitty's window.
      return `${ESC}]99;i=${id}:d=0:e=1;${base64(notice.title)}${ST}${ESC}]99;i=${id}:d=1:p=body:e=1;${base64(notice.lines.join("\n"))}${ST}`;
    case 9:
      return `${ESC}]9;${osc9Text(notice.oneLine)}${BEL}`;
    case 777:
      return `${ESC}]777;notify;${oscField(notice.title)};${oscField(notice.lines.join(" | "))}${BEL}`;
  }
}

/** Wrapped for tmux passthrough: tmux strips the wrapper and sends the inner sequence to the client's terminal. */
export function tmuxPassthrough(sequence: string): string {
  return `${ESC}Ptmux;${sequence.replaceAll(ESC, `${ESC}${ESC}`)}${ST}`;
}

interface Target {
  readonly tty: string;
  readonly kind: TerminalKind;
  readonly viaTmux: boolean;
  readonly who: string;
}

type Plan = { readonly targets: Target[]; readonly skipped: string[] };

async function clientKind(client: TmuxClientView, world: NotifyWorld): Promise<TerminalKind | undefined> {
  return terminalKind((await world.environOf(client.pid)) ?? {}, client.termname);
}

/** Every tty to write to, once each: the pane each client of a tmux session shows, or the session's own tty. */
async function plan(places: readonly Place[], world: NotifyWorld): Promise<Plan> {
  const targets = new Map<string, Target>();
  const skipped: string[] = [];
  const servers = new Set<string>();
  for (const place of places) {
    if (place.kind === "tmux") {
      if (servers.has(place.server.socket)) continue;
      servers.add(place.server.socket);
      if (place.server.clients.length === 0) skipped.push(`no client is attached to ${place.server.socket}`);
      for (const client of place.server.clients) {
        const kind = await clientKind(client, world);
        if (!kind)
          skipped.push(
            `client ${client.tty} runs in a terminal not known to show OSC notifications (TERM ${client.termname || "unknown"})`,
          );
        else if (!client.passthrough)
          skipped.push(`client ${client.tty} (${kind}): pane ${client.pane} has allow-passthrough off (set -g allow-passthrough on)`);
        else if (!targets.has(client.paneTty))
          targets.set(client.paneTty, {
            tty: client.paneTty,
            kind,
            viaTmux: true,
            who: `client ${client.tty} (${kind}) through pane ${client.pane}`,
          });
      }
    } else if (place.kind === "terminal") {
      const kind = terminalKind(place.env);
      if (!kind) skipped.push(`${place.where}: not a terminal known to show OSC notifications`);
      else if (!place.tty) skipped.push(`${place.where}: no tty recorded`);
      else if (!targets.has(place.tty)) targets.set(place.tty, { tty: place.tty, kind, viaTmux: false, who: `${place.where} (${kind})` });
    }
  }
  return { targets: [...targets.values()], skipped };
}

export const terminalOscChannel = {
  id: ID,
  async detect(places, world) {
    const { targets, skipped } = await plan(places, world);
    if (targets.length === 0) return { channel: ID, available: false, detail: skipped.join("; ") || "no terminal to write to" };
    return { channel: ID, available: true, detail: targets.map((target) => `OSC ${oscCodeOf(target.kind)} to ${target.who}`).join("; ") };
  },
  async deliver(notice, places, world) {
    const { targets, skipped } = await plan(places, world);
    if (targets.length === 0) return { channel: ID, outcome: "unavailable", detail: skipped.join("; ") || "no terminal to write to" };
    const results = targets.map((target) => {
      const sequence = oscNotification(target.kind, notice);
      const written = world.writeTty(target.tty, target.viaTmux ? tmuxPassthrough(sequence) : sequence);
      return written.ok
        ? { ok: true, text: `OSC ${oscCodeOf(target.kind)} to ${target.who}` }
        : { ok: false, text: `${target.who}: ${written.detail}` };
    });
    const detail = results.map((result) => result.text).join("; ");
    return { channel: ID, outcome: results.some((result) => result.ok) ? "delivered" : "failed", detail };
  },
} satisfies NotifyChannel;
