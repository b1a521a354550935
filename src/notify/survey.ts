// Where each session's terminal is right now, and whether the user is already looking at it: for tmux, one call per
// server gives every pane and every attached client (backends/tmux/survey.ts); for a session directly in a terminal
// window, its backend says whether that window has focus where it can (kitty, X11). docs/notifications.md,
// "When the user is already there".
import type { WindowFocus } from "../../backends/contract.ts";
import { BACKENDS } from "../../backends/registry.ts";
import { tmuxTargetOf } from "../../backends/tmux/runner.ts";
import { showsPane, surveyServer } from "../../backends/tmux/survey.ts";
import type { Terminal } from "../core/schema.ts";
import type { NotifyWorld, Place } from "./contract.ts";

export interface SurveyedSession {
  readonly id: string;
  readonly terminal: Terminal;
  /** A session on an SSH host: where it runs there (the host judged whether the user looks at it: hosts-watch.ts). */
  readonly onHost?: string;
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

/** A session's own terminal window (not in tmux): does it have focus? Asked of the backend that owns it, where it can say. */
async function windowFocus(terminal: Terminal, world: NotifyWorld): Promise<WindowFocus> {
  for (const backend of BACKENDS) {
    const located = backend.locate(terminal);
    if (!located) continue;
    return located.windowFocus
      ? located.windowFocus({ run: world.run, env: world.env })
      : { focused: undefined, where: located.describe() };
  }
  return { focused: undefined, where: terminal.tty ?? "its terminal" };
}

/** Where each session is, in the order given. Sessions on one tmux server share one tmux call. */
export async function surveyPlaces(sessions: readonly SurveyedSession[], world: NotifyWorld): Promise<Place[]> {
  const servers = new Map<string, ReturnType<typeof surveyServer>>();
  return Promise.all(
    sessions.map(async (session): Promise<Place> => {
      const { terminal } = session;
      if (session.onHost !== undefined) return { kind: "unknown", sessionId: session.id, where: session.onHost };
      if (terminal.unprovable) return { kind: "unknown", sessionId: session.id, where: "an unprovable terminal" };
      const tmux = tmuxTargetOf(terminal.env);
      if (tmux) {
        const { socket, pane } = tmux;
        let survey = servers.get(socket);
        if (!survey) servers.set(socket, (survey = surveyServer(socket, world.run)));
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
      const { focused, where } = await windowFocus(terminal, world);
      return { kind: "terminal", sessionId: session.id, tty: terminal.tty, env: terminal.env, focused, where };
    }),
  );
}
