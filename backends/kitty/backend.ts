// kitty: the socket from the captured KITTY_LISTEN_ON (kitty appends -<pid> to a kitty.conf `listen_on`, so only
// the environment has the real path), the window from KITTY_WINDOW_ID. `focus-window --match id:N` over the
// remote-control protocol, then verification from `ls`; an OS window still not focused (minimized, and kitty found no
// EWMH window manager at its start-up, so its focus request cannot restore it) is activated through X11.
// docs/focus.md, "kitty".
import {
  done,
  failed,
  skipped,
  type BackendOutcome,
  type FocusContext,
  type Operation,
  type TerminalBackend,
  type WindowFocus,
} from "../contract.ts";
import { openChannel, type Channel } from "./channel.ts";
import { parseListenOn, sendCommand, type RcReply, type SendCommand } from "./rc.ts";
import { checkFocus, parsePlacements, type FocusCheck } from "./state.ts";
import { activateWindow, hexId } from "../x11/window.ts";

export interface KittyTarget {
  readonly windowId: number;
  /** KITTY_LISTEN_ON: absent when kitty runs without a listen socket (remote control off). */
  readonly listenOn: string | undefined;
  /** DISPLAY of the kitty window, for restoring a minimized OS window through X11. */
  readonly display: string | undefined;
}

export const ENABLE_REMOTE_CONTROL =
  "add `allow_remote_control socket-only` (or `yes`) and `listen_on unix:/tmp/kitty` to kitty.conf and restart kitty; agents started in it afterwards can be focused";

/** How long focus-window alone gets before the OS window is raised through X11 (raising it again is harmless). */
const FIRST_LOOK_MS = 250;
/** Focus events reach kitty asynchronously: how long verification waits for the final state. */
const VERIFY_WINDOW_MS = 2000;
const POLL_MS = 20;

export function parseKittyEnv(env: Record<string, string | undefined>): KittyTarget | undefined {
  const id = env.KITTY_WINDOW_ID;
  if (!id || !/^\d+$/.test(id)) return undefined;
  return { windowId: Number(id), listenOn: env.KITTY_LISTEN_ON || undefined, display: env.DISPLAY || undefined };
}

const describeTarget = ({ windowId, listenOn }: KittyTarget) => `kitty window ${windowId}${listenOn ? ` (${listenOn})` : ""}`;

type Seen = { kind: "ok"; check: FocusCheck } | { kind: "failed"; reply: Exclude<RcReply, { kind: "ok" }> };

async function look(channel: Channel, windowId: number): Promise<Seen> {
  const reply = await channel.call("ls");
  if (reply.kind !== "ok") return { kind: "failed", reply };
  const placements = parsePlacements(reply.data);
  // Never echo the reply: `ls` holds every window's environment.
  if (!placements) return { kind: "failed", reply: { kind: "no-reply", detail: "kitty's ls reply is not in the expected shape" } };
  return { kind: "ok", check: checkFocus(placements, windowId) };
}

/** `ls` until the target is selected and focused, or the window of time closes (focus events arrive asynchronously). */
async function settle(channel: Channel, windowId: number, windowMs: number): Promise<Seen> {
  const deadline = Date.now() + windowMs;
  for (;;) {
    const seen = await look(channel, windowId);
    if (seen.kind !== "ok" || seen.check.complete || Date.now() >= deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const replyText = (reply: Exclude<RcReply, { kind: "ok" }>) => (reply.kind === "error" ? reply.error : reply.detail);

/** Whatever stopped us from talking to kitty at all: unavailable when it is remote control itself, else failed. */
function unreachable(
  target: KittyTarget,
  description: string,
  reply: Exclude<RcReply, { kind: "ok" }>,
  tried: string,
): BackendOutcome | undefined {
  const text = replyText(reply);
  const why =
    reply.kind === "unreachable"
      ? `kitty's remote-control socket ${target.listenOn} does not answer (${text}): that kitty has exited or the socket was removed`
      : /remote control is disabled|password/i.test(text)
        ? `kitty refuses remote control (${text})`
        : undefined;
  if (!why) return undefined;
  const detail = `${why}; tried: ${tried}. To focus kitty windows, ${ENABLE_REMOTE_CONTROL}`;
  return { located: false, target: description, selection: skipped(why), activation: skipped(why), unavailable: detail };
}

export async function focusKitty(target: KittyTarget, context: FocusContext, send?: SendCommand): Promise<BackendOutcome> {
  const description = describeTarget(target);
  const id = target.windowId;
  if (!target.listenOn) {
    const why =
      "kitty remote control is off for this window: its environment has no KITTY_LISTEN_ON (kitty was started without a listen socket)";
    return {
      located: false,
      target: description,
      selection: skipped(why),
      activation: skipped(why),
      unavailable: `${why}; tried: nothing to connect to. To focus kitty windows, ${ENABLE_REMOTE_CONTROL}`,
    };
  }
  const channel = openChannel(target.listenOn, context, send);
  const tried = () => `ls over ${channel.via()}`;

  const before = await look(channel, id);
  if (before.kind === "failed") {
    const text = replyText(before.reply);
    return (
      unreachable(target, description, before.reply, tried()) ?? {
        located: false,
        target: description,
        selection: failed(`kitty ls: ${text}`),
        activation: skipped(`kitty ls: ${text}`),
      }
    );
  }
  const where = before.check.placement;
  if (!where) {
    const gone = `kitty window ${id} no longer exists in the kitty at ${target.listenOn}`;
    return { located: false, target: description, selection: failed(gone), activation: skipped(gone) };
  }
  const located = `${description}, tab ${where.tabId} of OS window ${where.osWindowId}`;

  const focused = await channel.call("focus-window", { match: `id:${id}` });
  if (focused.kind !== "ok") {
    const text = replyText(focused);
    if (/No matching windows/.test(text))
      return {
        located: false,
        target: description,
        selection: failed(`kitty window ${id} no longer exists (${text})`),
        activation: skipped(text),
      };
    return (
      unreachable(target, description, focused, `focus-window over ${channel.via()}`) ?? {
        located: true,
        target: located,
        selection: failed(`kitty focus-window: ${text}`),
        activation: failed(`kitty focus-window: ${text}`),
      }
    );
  }

  let after = await settle(channel, id, FIRST_LOOK_MS);
  let raisedBy = "";
  if (after.kind === "ok" && !after.check.complete) {
    // focus-window selects the tab and window and asks for the OS window, but leaves a minimized one minimized (and
    // a window manager may refuse the request): bring the OS window up through X11, then look again.
    const xid = after.check.placement?.platformWindowId;
    const display = target.display ?? context.env.DISPLAY;
    if (!after.check.osWindowFocused && xid && display && context.platform !== "darwin") {
      const raised = await activateWindow({ run: context.run, display, env: context.env }, xid);
      raisedBy = `; OS window ${hexId(xid)} was not focused ${FIRST_LOOK_MS} ms after focus-window (minimized?), so: ${raised.detail}`;
    } else if (!after.check.osWindowFocused && xid && context.platform !== "darwin")
      raisedBy = "; the OS window is not focused, and no DISPLAY is known to raise it through X11";
    after = await settle(channel, id, VERIFY_WINDOW_MS);
  }
  if (after.kind === "failed") {
    const text = `could not verify: kitty ls: ${replyText(after.reply)}`;
    return { located: true, target: located, selection: failed(text), activation: failed(text) };
  }

  const { check } = after;
  const place = check.placement ?? where;
  const via = channel.via() === "socket" ? "" : ` (via ${channel.via()})`;
  const selection: Operation = check.selected
    ? done(`kitty window ${id} is the active window of tab ${place.tabId}, the active tab of OS window ${place.osWindowId}${via}`)
    : failed(`after focus-window, kitty window ${id} is not the active window of the active tab of its OS window${via}`);
  const activation: Operation = !check.osWindowFocused
    ? failed(
        `OS window ${place.osWindowId} is not focused: ${check.focusedIds.length === 0 ? "no kitty window is (another application has the focus?)" : `kitty window ${check.focusedIds.join(", ")} is`}${raisedBy}`,
      )
    : check.complete
      ? done(`OS window ${place.osWindowId} is focused and kitty window ${id} is the one focused window${raisedBy}`)
      : check.selected
        ? failed(
            `OS window ${place.osWindowId} is focused, but kitty reports focused windows [${check.focusedIds.join(", ")}], not just ${id}${raisedBy}`,
          )
        : done(
            `OS window ${place.osWindowId} is focused (it shows kitty window ${check.focusedIds.join(", ") || "none"}, not ${id})${raisedBy}`,
          );
  return { located: true, target: located, selection, activation };
}

/** Is the target the one focused kitty window (from `ls` over its socket)? Unknown without a socket or an answer. */
async function windowFocus(target: KittyTarget): Promise<WindowFocus> {
  const where = `kitty window ${target.windowId}`;
  const address = target.listenOn ? parseListenOn(target.listenOn) : undefined;
  if (!address) return { focused: undefined, where };
  const reply = await sendCommand(address, "ls", undefined, 1500);
  const placements = reply.kind === "ok" ? parsePlacements(reply.data) : undefined;
  if (!placements) return { focused: undefined, where };
  const focused = placements.filter((placement) => placement.focused);
  return { focused: focused.length === 1 && focused[0]?.windowId === target.windowId, where };
}

export const kittyBackend = {
  id: "kitty",
  displayName: "kitty",
  detect: (terminal) => parseKittyEnv(terminal.env),
  describe: describeTarget,
  focus: (target, context) => focusKitty(target, context),
  windowFocus,
  /** A tmux or screen client running in a kitty window: focus that window (tab and OS window with it). */
  async raise(env, context): Promise<Operation | undefined> {
    const target = parseKittyEnv(env);
    if (!target) return undefined;
    const outcome = await focusKitty(target, context);
    if (outcome.unavailable) return failed(outcome.unavailable);
    if (outcome.selection.succeeded && outcome.activation.succeeded)
      return done(`focused ${describeTarget(target)}: ${outcome.activation.detail}`);
    return failed(
      `${describeTarget(target)}: ${[outcome.selection, outcome.activation]
        .filter((operation) => !operation.succeeded)
        .map((operation) => operation.detail)
        .join("; ")}`,
    );
  },
} satisfies TerminalBackend<KittyTarget>;
