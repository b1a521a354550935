// tmux: the socket from the captured TMUX, the pane from TMUX_PANE. One switch command pinned to a chosen client,
// then verification of what that client shows (docs/focus.md, "tmux"). A key binding names its client (`--client`):
// then locating, switching and verifying are one tmux process instead of three (a keypress should feel instant).
import { done, failed, skipped, type BackendOutcome, type TerminalBackend, type FocusContext, type Operation } from "../contract.ts";
import type { RunResult } from "../../src/core/exec.ts";
import { capturePane, sendKeysToPane } from "./capture.ts";
import { parseTmuxEnv, taggedRows, tmux as runTmux, tmuxTargetOf, type TmuxTarget } from "./runner.ts";

interface Client {
  readonly tty: string;
  readonly sessionId: string;
  readonly activity: number;
  readonly pid: number;
}

/** Row tags in the output of one tmux call that runs several commands: which command printed the row. */
const PANE_ROW = "pane\t";
const CLIENT_ROW = "client\t";
/** The rows the one-call path prints after the switch: the pane's flags, and the pane each client shows. */
const ACTIVE_ROW = "active\t";
const SHOWS_ROW = "shows\t";

export function parseClients(stdout: string): Client[] {
  return stdout
    .split("\n")
    .map((line) => line.split("\t"))
    .filter((fields) => fields.length === 4 && fields[0] !== "")
    .map(([tty, sessionId, activity, pid]) => ({
      tty: tty as string,
      sessionId: sessionId as string,
      activity: Number(activity),
      pid: Number(pid),
    }));
}

const mostRecent = (clients: readonly Client[]): Client | undefined => [...clients].sort((a, b) => b.activity - a.activity)[0];

/** Why a tmux call failed, in words a user can act on. */
function explain(result: RunResult, socket: string, pane: string): string {
  const message = result.stderr.trim() || result.failure || `exit ${result.code}`;
  if (result.failure === "not-found") return "tmux is not installed";
  if (/no server running|error connecting|No such file or directory/.test(message))
    return `the tmux server on ${socket} is gone (${message})`;
  if (/can't find pane/.test(message)) return `pane ${pane} no longer exists on ${socket}`;
  return message;
}

type Choice = { client: Client; pinned: boolean; why: string } | undefined;

/**
 * The client to switch: the one the user is at (`--client`, or the client of the caller's own tmux session), else a
 * client already on the target's session, else the most recently active. Never "some client" tmux picks.
 */
export function chooseClient(
  clients: readonly Client[],
  targetSessionId: string,
  socket: string,
  context: Pick<FocusContext, "client" | "env">,
): Choice {
  if (context.client) {
    const pinned = clients.find((client) => client.tty === context.client);
    if (pinned) return { client: pinned, pinned: true, why: `the client that asked (${pinned.tty})` };
  }
  const caller = parseTmuxEnv(context.env.TMUX);
  if (caller && caller.socket === socket && caller.sessionId) {
    const own = mostRecent(clients.filter((client) => client.sessionId === caller.sessionId));
    if (own) return { client: own, pinned: true, why: `the caller's own client (${own.tty})` };
  }
  const onTarget = mostRecent(clients.filter((client) => client.sessionId === targetSessionId));
  if (onTarget) return { client: onTarget, pinned: false, why: `a client already on the target's session (${onTarget.tty})` };
  const recent = mostRecent(clients);
  return recent ? { client: recent, pinned: false, why: `the most recently active client (${recent.tty})` } : undefined;
}

export const tmuxBackend = {
  id: "tmux",
  displayName: "tmux",
  detect: (terminal) => tmuxTargetOf(terminal.env),
  describe: ({ socket, pane }) => `tmux pane ${pane} (${socket})`,
  async focus({ socket, pane }, context): Promise<BackendOutcome> {
    const tmux = (...args: string[]) => runTmux(args, { socket, run: context.run });
    const target = `tmux pane ${pane} (${socket})`;
    if (context.client?.startsWith("/")) {
      const pinned = await focusPinned(tmux, socket, pane, context.client);
      if (pinned) return pinned;
      // The named client is not attached to this server: choose another below, as if it had not been named.
    }
    // display on a dead pane succeeds with empty output; has-session fails on it, so it is the existence check. When a
    // command of a sequence fails, tmux runs none of the rest: one call answers existence, location and clients.
    const located = await tmux(
      ...locatePane(pane),
      ";",
      "list-clients",
      "-F",
      `${CLIENT_ROW}#{client_tty}\t#{session_id}\t#{client_activity}\t#{client_pid}`,
    );
    if (!located.ok) {
      const why = explain(located, socket, pane);
      return { located: false, target, selection: failed(why), activation: skipped(why) };
    }
    const [sessionId = "", sessionName = "", windowIndex = ""] = taggedRows(located.stdout, PANE_ROW)[0]?.split("\t") ?? [];
    const where = `${target}, session ${sessionName} window ${windowIndex}`;
    const choice = chooseClient(parseClients(taggedRows(located.stdout, CLIENT_ROW).join("\n")), sessionId, socket, context);

    // One command, so a popup closing on the session switch cannot cut the sequence short.
    const switched = choice
      ? await tmux("switch-client", "-c", choice.client.tty, "-t", pane, ";", "select-window", "-t", pane, ";", "select-pane", "-t", pane)
      : await tmux("select-window", "-t", pane, ";", "select-pane", "-t", pane);
    if (!switched.ok) {
      const why = explain(switched, socket, pane);
      return { located: true, target: where, selection: failed(why), activation: failed(why) };
    }

    // Verify in one call: the pane is active in its window, the window in its session, and what each client shows.
    // (`display -c TTY` run from outside tmux does not read that client: tmux 3.3a answers for another one;
    // list-clients formats are per client.)
    const verified = await tmux(
      "display-message",
      "-p",
      "-t",
      pane,
      `${PANE_ROW}#{pane_active}#{window_active}#{window_zoomed_flag}`,
      ";",
      "list-clients",
      "-F",
      `${CLIENT_ROW}#{client_tty}\t#{pane_id}`,
    );
    const selection = selectionOf(taggedRows(verified.stdout, PANE_ROW)[0] ?? "", verified, pane, sessionName, windowIndex);

    if (!choice)
      return {
        located: true,
        target: where,
        selection,
        activation: skipped(`no tmux client is attached to ${socket}: nothing shows the pane until one attaches`),
      };
    const shown = shownBy(taggedRows(verified.stdout, CLIENT_ROW), choice.client.tty, pane);
    if (shown !== undefined) return { located: true, target: where, selection, activation: failed(shown) };
    const showing = `${choice.why} shows ${pane}`;
    if (choice.pinned) return { located: true, target: where, selection, activation: done(showing) };
    // Not the client the user is at: the user sees the pane only if that client's terminal window comes to the front.
    const outerEnv = await context.environOf(choice.client.pid);
    const raised = outerEnv
      ? await context.raiseOuter(outerEnv)
      : failed(`could not read the environment of tmux client process ${choice.client.pid}`);
    return {
      located: true,
      target: where,
      selection,
      activation: { attempted: true, succeeded: raised.succeeded, detail: `${showing}; ${raised.detail}` },
    };
  },
  capture: (target, lines, { run }) => capturePane(target, lines, run),
  sendKeys: (target, keys, { run }) => sendKeysToPane(target, keys, run),
} satisfies TerminalBackend<TmuxTarget>;

/** Selection succeeded when the pane is active in its window and the window in its session (`flags` starts `11`). */
function selectionOf(flags: string, verified: RunResult, pane: string, sessionName: string, windowIndex: string): Operation {
  return flags.startsWith("11")
    ? done(`selected ${pane} in session ${sessionName} window ${windowIndex}`)
    : failed(`after switching, ${pane} is not the active pane of its session (tmux says ${flags || verified.stderr.trim()})`);
}

/** Why `tty` does not show `pane`, from list-clients rows `<tty>\t<pane id>`; undefined when it does. */
function shownBy(clientRows: readonly string[], tty: string, pane: string): string | undefined {
  const clientPane = clientRows.find((line) => line.startsWith(`${tty}\t`))?.split("\t")[1];
  return clientPane === pane ? undefined : `client ${tty} shows ${clientPane ?? "nothing"}, not ${pane}`;
}

/**
 * The client named by `--client` (a key binding's `#{client_tty}`), in one tmux call: existence, location, the
 * switch and its verification, in that order (tmux runs none of a sequence's later commands once one fails, and runs
 * them in order, so the rows after the switch show the state the switch left). Undefined when the pane was found but
 * the switch failed (the client is not attached here): the caller then chooses a client from the table, as before.
 */
/**
 * The start of every locating sequence: has-session is the existence check (display on a dead pane succeeds with empty
 * output), then the pane's session and window as a PANE_ROW line.
 */
function locatePane(pane: string): string[] {
  return [
    "has-session",
    "-t",
    pane,
    ";",
    "display-message",
    "-p",
    "-t",
    pane,
    `${PANE_ROW}#{session_id}\t#{session_name}\t#{window_index}`,
  ];
}

async function focusPinned(
  tmux: (...args: string[]) => Promise<RunResult>,
  socket: string,
  pane: string,
  tty: string,
): Promise<BackendOutcome | undefined> {
  const target = `tmux pane ${pane} (${socket})`;
  const called = await tmux(
    ...locatePane(pane),
    ";",
    "switch-client",
    "-c",
    tty,
    "-t",
    pane,
    ";",
    "select-window",
    "-t",
    pane,
    ";",
    "select-pane",
    "-t",
    pane,
    ";",
    "display-message",
    "-p",
    "-t",
    pane,
    `${ACTIVE_ROW}#{pane_active}#{window_active}#{window_zoomed_flag}`,
    ";",
    "list-clients",
    "-F",
    `${SHOWS_ROW}#{client_tty}\t#{pane_id}`,
  );
  const location = taggedRows(called.stdout, PANE_ROW)[0];
  if (location === undefined) {
    const why = explain(called, socket, pane);
    return { located: false, target, selection: failed(why), activation: skipped(why) };
  }
  if (!called.ok) return undefined;
  const [, sessionName = "", windowIndex = ""] = location.split("\t");
  const where = `${target}, session ${sessionName} window ${windowIndex}`;
  const selection = selectionOf(taggedRows(called.stdout, ACTIVE_ROW)[0] ?? "", called, pane, sessionName, windowIndex);
  const shown = shownBy(taggedRows(called.stdout, SHOWS_ROW), tty, pane);
  const activation = shown === undefined ? done(`the client that asked (${tty}) shows ${pane}`) : failed(shown);
  return { located: true, target: where, selection, activation };
}
