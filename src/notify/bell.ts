// The last resort: a BEL written to the session's pane (tmux flags the window and passes the bell to attached
// clients, per its bell-action) or to the session's own tty (the terminal beeps or marks the window urgent). Used only
// when no other channel delivered (docs/notifications.md, "Bell").
import type { ChannelId } from "./config.ts";
import type { NotifyChannel } from "./contract.ts";
import type { Place } from "./contract.ts";

const ID: ChannelId = "bell";

function ttys(places: readonly Place[]): string[] {
  const found = places.map((place) => (place.kind === "tmux" ? place.paneTty : place.kind === "terminal" ? place.tty : undefined));
  return [...new Set(found.filter((tty): tty is string => tty !== undefined && tty !== ""))];
}

export const bellChannel = {
  id: ID,
  async detect(places) {
    const found = ttys(places);
    return found.length > 0
      ? { channel: ID, available: true, detail: `BEL to ${found.join(", ")}` }
      : { channel: ID, available: false, detail: "no tty known for the sessions" };
  },
  async deliver(_notice, places, world) {
    const found = ttys(places);
    if (found.length === 0) return { channel: ID, outcome: "unavailable", detail: "no tty known for the sessions" };
    const results = found.map((tty) => ({ tty, written: world.writeTty(tty, "\x07") }));
    const ok = results.filter((result) => result.written.ok).map((result) => result.tty);
    const failed = results.flatMap((result) => (result.written.ok ? [] : [result.written.detail]));
    return ok.length > 0
      ? { channel: ID, outcome: "delivered", detail: `BEL to ${ok.join(", ")}` }
      : { channel: ID, outcome: "failed", detail: failed.join("; ") };
  },
} satisfies NotifyChannel;
