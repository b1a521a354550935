// The desktop notification on Linux (and any system with a freedesktop notification server on its session bus):
// org.freedesktop.Notifications.Notify over D-Bus, with a "default" action (a click on the notification) and one
// action per session when it names several, and Allow / Deny for one waiting session keys can answer, where the server
// supports actions. The connection stays open while the notification can still be clicked: the notifier then focuses
// the session, or answers its wait. docs/notifications.md, "Desktop".
import type { ChannelId } from "./config.ts";
import type { ClickOutcome, Delivery, Notice, NotifyChannel, NotifyWorld, PendingClick } from "./contract.ts";
import { connectBus, sessionBusAddresses, type BusConnection, type MethodCall } from "./dbus-connection.ts";
import { escapeMarkup } from "./sanitize.ts";

const SERVER = {
  destination: "org.freedesktop.Notifications",
  path: "/org/freedesktop/Notifications",
  interface: "org.freedesktop.Notifications",
} as const;
const BUS = { destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus" } as const;
/** A server that does not answer within this is hung or overloaded: the notice goes through other channels. */
export const CALL_TIMEOUT_MS = 2000;
const CONNECT_TIMEOUT_MS = 1500;
/** Per-session buttons beyond the default action, when a notice names several sessions. */
const MAX_SESSION_ACTIONS = 3;
const URGENCY_BYTE = { low: 0, normal: 1, critical: 2 } as const;
/** NotificationClosed reasons (the specification's numbering). */
const CLOSED_REASON: Record<number, string> = { 1: "expired", 2: "dismissed by the user", 3: "closed by CloseNotification", 4: "closed" };

const ID: ChannelId = "desktop";

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly capabilities: readonly string[];
}

type Opened = { ok: true; connection: BusConnection; info: ServerInfo } | { ok: false; outcome: "unavailable" | "failed"; detail: string };

async function openServer(world: NotifyWorld): Promise<Opened> {
  const lookup = sessionBusAddresses(world.env);
  if (!lookup.ok) return { ok: false, outcome: "unavailable", detail: lookup.detail };
  const connected = await connectBus(lookup.addresses, CONNECT_TIMEOUT_MS);
  if (!connected.ok) return { ok: false, outcome: "unavailable", detail: `the session bus does not answer: ${connected.detail}` };
  const connection = connected.connection;
  const fail = (outcome: "unavailable" | "failed", detail: string): Opened => {
    connection.close();
    return { ok: false, outcome, detail };
  };
  const information = await connection.call({ ...SERVER, member: "GetServerInformation" }, CALL_TIMEOUT_MS);
  if (!information.ok) {
    if (information.error === "org.freedesktop.DBus.Error.ServiceUnknown")
      return fail("unavailable", "no notification server on the session bus (org.freedesktop.Notifications has no owner)");
    return fail("failed", `the notification server failed: ${information.detail}`);
  }
  const capabilities = await connection.call({ ...SERVER, member: "GetCapabilities" }, CALL_TIMEOUT_MS);
  if (!capabilities.ok) return fail("failed", `the notification server failed: ${capabilities.detail}`);
  const [name, , version] = information.body.map(String);
  const list = Array.isArray(capabilities.body[0]) ? (capabilities.body[0] as unknown[]).map(String) : [];
  return { ok: true, connection, info: { name: name ?? "?", version: version ?? "?", capabilities: list } };
}

const describe = (info: ServerInfo) =>
  `${info.name} ${info.version} on the session bus${info.capabilities.includes("actions") ? ", with actions (a click focuses the pane)" : ", without actions (no click)"}`;

/**
 * The action list: key, label, key, label... `default` is what clicking the notification itself does. A notice about
 * one waiting session that keys can answer also offers Allow and Deny, whose keys carry that wait's id: a button
 * answers that wait or nothing (`answerable`: the server's signals can be told apart from anyone else's).
 */
function actionsOf(notice: Notice, answerable: boolean): string[] {
  if (notice.sessions.length === 0) return [];
  const actions = ["default", "Focus"];
  if (notice.sessions.length > 1)
    notice.sessions.slice(0, MAX_SESSION_ACTIONS).forEach((session, index) => actions.push(`focus-${index}`, `Go to ${session.label}`));
  const wait = notice.sessions.length === 1 ? notice.sessions[0]?.wait : undefined;
  if (answerable && wait !== undefined) actions.push(`allow:${wait}`, "Allow", `deny:${wait}`, "Deny");
  return actions;
}

/** What choosing an action means: focus a session, or answer a wait; undefined for a key this notice does not have. */
export function outcomeOfAction(notice: Notice, key: string): ClickOutcome | undefined {
  const focus = key === "default" ? notice.sessions[0] : notice.sessions[Number(/^focus-(\d)$/.exec(key)?.[1] ?? NaN)];
  if (focus) return { kind: "clicked", sessionId: focus.id };
  const reply = /^(allow|deny):([0-9a-f]{12})$/.exec(key);
  const session = notice.sessions.length === 1 ? notice.sessions[0] : undefined;
  if (!reply || !session?.wait || session.wait !== reply[2]) return undefined;
  return { kind: "reply", sessionId: session.id, wait: session.wait, reply: reply[1] as "allow" | "deny" };
}

/** `owner`: the notification server's unique bus name; a signal from anyone else is not its click. */
function pendingClick(connection: BusConnection, id: number, notice: Notice, owner: string | undefined): PendingClick {
  let settle: ((outcome: ClickOutcome) => void) | undefined;
  // A click can come before anyone waits for it: the first outcome is kept until then.
  let early: ClickOutcome | undefined;
  const happened = (outcome: ClickOutcome) => (settle ? settle(outcome) : (early ??= outcome));
  connection.onSignal((message) => {
    if (message.interface !== SERVER.interface || message.body[0] !== id) return;
    if (owner !== undefined && message.sender !== owner) return;
    if (message.member === "ActionInvoked") {
      const key = String(message.body[1]);
      happened(outcomeOfAction(notice, key) ?? { kind: "closed", detail: `unknown action ${JSON.stringify(key.slice(0, 32))}` });
    } else if (message.member === "NotificationClosed") {
      happened({ kind: "closed", detail: CLOSED_REASON[Number(message.body[1])] ?? "closed" });
    }
  });
  connection.onClose(() => happened({ kind: "gave-up", detail: "the session bus closed the connection" }));
  const close = async () => {
    await connection.call({ ...SERVER, member: "CloseNotification", signature: "u", body: [id] }, CALL_TIMEOUT_MS);
    connection.close();
  };
  return {
    close,
    wait: ({ timeoutMs, stillWanted, checkEveryMs = 2000 }) =>
      new Promise<ClickOutcome>((resolve) => {
        if (early) return resolve(early);
        const timer = setTimeout(() => finish({ kind: "gave-up", detail: `no click within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
        const check = setInterval(() => {
          if (!stillWanted()) finish({ kind: "closed", detail: "no longer needed: the sessions moved on" });
        }, checkEveryMs);
        const finish = (outcome: ClickOutcome) => {
          clearTimeout(timer);
          clearInterval(check);
          settle = undefined;
          resolve(outcome);
        };
        settle = finish;
      }),
  };
}

export const desktopLinuxChannel = {
  id: ID,
  async detect(_places, world) {
    const opened = await openServer(world);
    if (!opened.ok) return { channel: ID, available: false, detail: opened.detail };
    opened.connection.close();
    return { channel: ID, available: true, detail: describe(opened.info) };
  },
  async deliver(notice, _places, world): Promise<Delivery & { pending?: PendingClick }> {
    const opened = await openServer(world);
    if (!opened.ok) return { channel: ID, outcome: opened.outcome, detail: opened.detail };
    const { connection, info } = opened;
    // Before Notify, so no signal about it can be missed; servers that send signals to everyone need the match.
    const match: MethodCall = {
      ...BUS,
      member: "AddMatch",
      signature: "s",
      body: [`type='signal',interface='${SERVER.interface}',path='${SERVER.path}'`],
    };
    await connection.call(match, CALL_TIMEOUT_MS);
    // Who the server is on the bus: any client can send a signal that looks like its ActionInvoked, and only the
    // server's may answer a dialog. Without it known, no Allow / Deny.
    const owned = await connection.call({ ...BUS, member: "GetNameOwner", signature: "s", body: [SERVER.destination] }, CALL_TIMEOUT_MS);
    const owner = owned.ok && typeof owned.body[0] === "string" ? owned.body[0] : undefined;
    const actions = info.capabilities.includes("actions") ? actionsOf(notice, owner !== undefined) : [];
    const body = info.capabilities.includes("body-markup") ? escapeMarkup(notice.lines.join("\n")) : notice.lines.join("\n");
    const sent = await connection.call(
      {
        ...SERVER,
        member: "Notify",
        signature: "susssasa{sv}i",
        body: [
          "tongs-agents",
          0,
          "",
          notice.title,
          body,
          actions,
          [["urgency", { signature: "y", value: URGENCY_BYTE[notice.urgency] }]],
          -1,
        ],
      },
      CALL_TIMEOUT_MS,
    );
    if (!sent.ok || typeof sent.body[0] !== "number") {
      connection.close();
      return { channel: ID, outcome: "failed", detail: `Notify failed: ${sent.ok ? "no id in the reply" : sent.detail}` };
    }
    const detail = `${info.name} ${info.version} showed notification ${sent.body[0]}`;
    if (actions.length === 0) {
      connection.close();
      const why = notice.sessions.length > 0 ? " (the server has no actions: a click cannot focus the pane)" : "";
      return { channel: ID, outcome: "delivered", detail: `${detail}${why}` };
    }
    return {
      channel: ID,
      outcome: "delivered",
      detail: `${detail} with ${actions.length / 2} action(s)`,
      pending: pendingClick(connection, sent.body[0], notice, owner),
    };
  },
} satisfies NotifyChannel;
