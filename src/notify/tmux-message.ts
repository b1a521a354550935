// A tmux message (`display-message -c <client>`) on every attached client that does not show the sessions' panes:
// the status line says which agent needs the user, on the terminal they are at (docs/notifications.md, "tmux").
import type { ChannelId } from "./config.ts";
import type { NotifyChannel } from "./contract.ts";
import { tmuxMessageText } from "./sanitize.ts";
import type { Place } from "./contract.ts";
import { displayMessage } from "../../backends/tmux/message.ts";
import { showsPane } from "../../backends/tmux/survey.ts";

const ID: ChannelId = "tmux";

type TmuxPlace = Extract<Place, { kind: "tmux" }>;

/** Per tmux server, the clients that do not already show every pane of the notice on that server. */
function recipients(places: readonly Place[]): { socket: string; ttys: string[]; showing: string[] }[] {
  const bySocket = new Map<string, TmuxPlace[]>();
  for (const place of places)
    if (place.kind === "tmux") bySocket.set(place.server.socket, [...(bySocket.get(place.server.socket) ?? []), place]);
  return [...bySocket.values()].map((group) => {
    const { server } = group[0] as TmuxPlace;
    const showsAll = (client: (typeof server.clients)[number]) => group.every((place) => showsPane(client, place));
    return {
      socket: server.socket,
      ttys: server.clients.filter((client) => !showsAll(client)).map((client) => client.tty),
      showing: server.clients.filter(showsAll).map((client) => client.tty),
    };
  });
}

export const tmuxMessageChannel = {
  id: ID,
  async detect(places) {
    const groups = recipients(places);
    if (groups.length === 0) return { channel: ID, available: false, detail: "not in tmux" };
    const clients = groups.flatMap((group) => [...group.ttys, ...group.showing]);
    return clients.length > 0
      ? { channel: ID, available: true, detail: `${clients.length} attached client(s): ${clients.join(", ")}` }
      : { channel: ID, available: false, detail: "no client is attached to the sessions' tmux server" };
  },
  async deliver(notice, places, world) {
    const groups = recipients(places);
    if (groups.length === 0) return { channel: ID, outcome: "unavailable", detail: "not in tmux" };
    const message = tmuxMessageText(`tongs-agents: ${notice.oneLine}`);
    const done: string[] = [];
    const failures: string[] = [];
    for (const group of groups) {
      for (const tty of group.ttys) {
        const shown = await displayMessage(group.socket, tty, message, world.run);
        if (shown.ok) done.push(tty);
        else failures.push(`${tty}: ${shown.detail}`);
      }
    }
    const showing = groups.flatMap((group) => group.showing);
    if (done.length > 0)
      return {
        channel: ID,
        outcome: "delivered",
        detail: `message on ${done.join(", ")}${failures.length > 0 ? `; failed: ${failures.join("; ")}` : ""}`,
      };
    if (failures.length > 0) return { channel: ID, outcome: "failed", detail: failures.join("; ") };
    if (showing.length > 0)
      return { channel: ID, outcome: "not-needed", detail: `every attached client already shows the pane (${showing.join(", ")})` };
    return { channel: ID, outcome: "unavailable", detail: "no client is attached to the sessions' tmux server" };
  },
} satisfies NotifyChannel;
