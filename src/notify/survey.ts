// Where each session's terminal is right now, and whether the user is already looking at it: for tmux, one call per
// server gives every pane and every attached client (what it shows, whether its terminal window has focus); for a
// session directly in kitty or a plain X11 terminal, whether that window has focus. docs/notifications.md,
// "When the user is already there".
import { parseKittyEnv } from "../../backends/kitty/backend.ts";
import { parseListenOn, sendCommand } from "../../backends/kitty/rc.ts";
import { parsePlacements } from "../../backends/kitty/state.ts";
import { parseTmuxEnv, tmux } from "../../backends/tmux/runner.ts";
import { parseWindowId } from "../../backends/x11/backend.ts";
import { focusedWindow, hexId } from "../../backends/x11/window.ts";
import type { Terminal } from "../core/schema.ts";
import type { NotifyWorld, Place, TmuxClientView, TmuxServerView } from "./contract.ts";

export interface SurveyedSession {
  readonly id: string;
  readonly terminal: Terminal;
}

const PANE = /^%\d+$/;
const PANE_ROW = "pane\t";
const CLIENT_ROW = "client\t";
const SERVER_ROW = "server\t";

/** The rows of `stdout` that carry `tag`, split into fields. */
function rows(stdout: string, tag: string): string[][] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith(tag))
    .map((line) => line.slice(tag.length).split("\t"));
}

interface PaneFacts {
  readonly tty: string;
  readonly windowId: string;
  readonly zoomed: boolean;
  readonly location: string;
}

/** One tmux call: focus tracking, every pane, every client with what it shows. Undefined when the server is gone. */
async function surveyTmux(
  socket: string,
  world: NotifyWorld,
): Promise<{ server: TmuxServerView; panes: Map<string, PaneFacts> } | undefined> {
  const result = await tmux(
    [
      "display-message",
      "-p",
      `${SERVER_ROW}#{version}`,
      ";",
      "show-options",
      "-sv",
      "focus-events",
      ";",
      "list-panes",
      "-a",
      "-F",
      `${PANE_ROW}#{pane_id}\t#{pane_tty}\t#{window_id}\t#{window_zoomed_flag}\t#{session_name}:#{window_index}`,
      ";",
      "list-clients",
      "-F",
      `${CLIENT_ROW}#{client_tty}\t#{client_flags}\t#{client_termname}\t#{client_pid}\t#{window_id}\t#{pane_id}\t#{pane_tty}\t#{allow-passthrough}`,
    ],
    { socket, run: world.run },
  );
  if (!result.ok) return undefined;
  // show-options prints its value on a line of its own, after the server row.
  const lines = result.stdout.split("\n");
  const focusEvents = lines[lines.findIndex((line) => line.startsWith(SERVER_ROW)) + 1]?.trim();
  const panes = new Map<string, PaneFacts>();
  for (const [id = "", tty = "", windowId = "", zoomed = "", location = ""] of rows(result.stdout, PANE_ROW))
    panes.set(id, { tty, windowId, zoomed: zoomed === "1", location });
  const clients = rows(result.stdout, CLIENT_ROW)
    .filter((fields) => fields.length >= 8 && fields[0] !== "")
    .map(([tty = "", flags = "", termname = "", pid = "", windowId = "", pane = "", paneTty = "", passthrough = ""]) => ({
      tty,
      focused: flags.split(",").includes("focused"),
      termname,
      pid: /^\d+$/.test(pid) ? Number(pid) : 0,
      windowId,
      pane,
      paneTty,
      passthrough: passthrough === "1" || passthrough === "on",
    }));
  return { server: { socket, focusKnown: focusEvents === "on", clients }, panes };
}

/** Does this client show the pane (its window is the client's current one, and not zoomed onto another pane)? */
export function showsPane(client: TmuxClientView, place: Extract<Place, { kind: "tmux" }>): boolean {
  return client.windowId === place.windowId && (!place.zoomed || client.pane === place.pane);
}

/** Is the user already looking at this session? With the reason, for the log. */
export function onScreen(place: Place): { readonly onScreen: boolean; readonly why: string } {
  if (place.kind === "tmux") {
    const { server } = place;
    if (server.focusKnown) {
      const looking = server.clients.find((client) => client.focused && showsPane(client, place));
      return looking
        ? { onScreen: true, why: `client ${looking.tty} shows ${place.pane} in a focused terminal window` }
        : { onScreen: false, why: `no focused client shows ${place.pane}` };
    }
    // Without focus-events tmux cannot know whether the terminal window has focus: the client's active pane counts.
    const active = server.clients.find((client) => client.pane === place.pane);
    return active
      ? {
          onScreen: true,
          why: `${place.pane} is the active pane of client ${active.tty} (tmux focus-events is off, so window focus is unknown)`,
        }
      : { onScreen: false, why: `no client has ${place.pane} as its active pane` };
  }
  if (place.kind === "terminal" && place.focused === true) return { onScreen: true, why: `${place.where} has focus` };
  return {
    onScreen: false,
    why:
      place.kind === "terminal" && place.focused === false
        ? `${place.where} does not have focus`
        : `cannot tell whether ${place.where} is on screen`,
  };
}

/** The kitty window or plain X11 window a session runs in directly: does it have focus? */
async function directFocus(terminal: Terminal, world: NotifyWorld): Promise<{ focused: boolean | undefined; where: string }> {
  const kitty = parseKittyEnv(terminal.env);
  if (kitty) {
    const where = `kitty window ${kitty.windowId}`;
    const address = kitty.listenOn ? parseListenOn(kitty.listenOn) : undefined;
    if (!address) return { focused: undefined, where };
    const reply = await sendCommand(address, "ls", undefined, 1500);
    const placements = reply.kind === "ok" ? parsePlacements(reply.data) : undefined;
    if (!placements) return { focused: undefined, where };
    const focused = placements.filter((placement) => placement.focused);
    return { focused: focused.length === 1 && focused[0]?.windowId === kitty.windowId, where };
  }
  const windowId = parseWindowId(terminal.env.WINDOWID);
  const display = terminal.env.DISPLAY ?? world.env.DISPLAY;
  if (windowId !== undefined && display) {
    const where = `X11 window ${hexId(windowId)}`;
    const seen = await focusedWindow({ run: world.run, display, env: world.env });
    return { focused: seen.kind === "ok" ? seen.id === windowId : undefined, where };
  }
  return { focused: undefined, where: terminal.tty ?? "its terminal" };
}

/** Where each session is, in the order given. Sessions on one tmux server share one tmux call. */
export async function surveyPlaces(sessions: readonly SurveyedSession[], world: NotifyWorld): Promise<Place[]> {
  const servers = new Map<string, ReturnType<typeof surveyTmux>>();
  return Promise.all(
    sessions.map(async (session): Promise<Place> => {
      const { terminal } = session;
      if (terminal.unprovable) return { kind: "unknown", sessionId: session.id, where: "an unprovable terminal" };
      const tmux = parseTmuxEnv(terminal.env.TMUX);
      const pane = terminal.env.TMUX_PANE;
      if (tmux && pane && PANE.test(pane)) {
        let survey = servers.get(tmux.socket);
        if (!survey) servers.set(tmux.socket, (survey = surveyTmux(tmux.socket, world)));
        const found = await survey;
        const facts = found?.panes.get(pane);
        if (!found || !facts) return { kind: "unknown", sessionId: session.id, where: `tmux pane ${pane} (gone)` };
        return {
          kind: "tmux",
          sessionId: session.id,
          server: found.server,
          pane,
          paneTty: facts.tty,
          windowId: facts.windowId,
          zoomed: facts.zoomed,
          where: `tmux ${pane} (${facts.location})`,
        };
      }
      if (terminal.env.STY)
        return {
          kind: "terminal",
          sessionId: session.id,
          tty: terminal.tty,
          env: terminal.env,
          focused: undefined,
          where: `GNU screen window ${terminal.env.WINDOW ?? "?"}`,
        };
      const direct = await directFocus(terminal, world);
      return {
        kind: "terminal",
        sessionId: session.id,
        tty: terminal.tty,
        env: terminal.env,
        focused: direct.focused,
        where: direct.where,
      };
    }),
  );
}
