// Where a tmux server's panes are and who looks at them, in one tmux call: every pane (its tty, window, zoom, place),
// every attached client with what it shows and whether its terminal window has focus. The notifier asks it whether
// the user already sees a session (docs/notifications.md, "When the user is already there").
import type { Runner } from "../../src/core/exec.ts";
import { taggedRows, tmux } from "./runner.ts";

/** An attached client, as the notifier's channels see it. */
export interface TmuxClientView {
  readonly tty: string;
  /** The client's terminal window has focus (meaningful only when the server tracks focus: `focus-events on`). */
  readonly focused: boolean;
  readonly termname: string;
  readonly pid: number;
  /** What it shows: its session's current window, and that window's active pane. */
  readonly windowId: string;
  readonly pane: string;
  readonly paneTty: string;
  /** `allow-passthrough` of the pane it shows: escape sequences written to that pane reach the client's terminal. */
  readonly passthrough: boolean;
}

export interface TmuxServerView {
  readonly socket: string;
  /** `focus-events on`: tmux asks the terminal for focus reports, so a client's `focused` flag is true. */
  readonly focusKnown: boolean;
  readonly clients: readonly TmuxClientView[];
}

/** A pane in its window, as the survey found it. */
export interface ShownPane {
  readonly pane: string;
  readonly windowId: string;
  readonly zoomed: boolean;
}

const PANE_ROW = "pane\t";
const CLIENT_ROW = "client\t";
const SERVER_ROW = "server\t";

/** The rows of `stdout` that carry `tag`, split into fields. */
const rows = (stdout: string, tag: string): string[][] => taggedRows(stdout, tag).map((row) => row.split("\t"));

export interface PaneFacts {
  readonly tty: string;
  readonly windowId: string;
  readonly zoomed: boolean;
  readonly location: string;
}

/** One tmux call: focus tracking, every pane, every client with what it shows. Undefined when the server is gone. */
export async function surveyServer(
  socket: string,
  run: Runner,
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
    { socket, run },
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
export function showsPane(client: TmuxClientView, place: ShownPane): boolean {
  return client.windowId === place.windowId && (!place.zoomed || client.pane === place.pane);
}
