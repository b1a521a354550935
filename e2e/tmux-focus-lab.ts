// Real tmux inside a container, the way test/live/tmux-lab.ts does it on the host: an inner server where the agents run
// in panes, and an outer server whose panes run attached inner clients. The outer pane holds exactly what that client
// renders, and the outer cursor is the client's cursor, so a test reads what the user would see (terminals.md,
// "Proof of what a client really shows"). Every call is one `podman exec` (no stdin, no terminal).
import { join } from "node:path";
import { shellQuote } from "../src/core/shell-quote.ts";
import { E2E_DIR, type Box, type Run } from "./containers.ts";
import { pollUntil } from "./poll.ts";

/** The inner server's socket: a space in the path on purpose (the TMUX variable and the backend must cope). */
export const INNER = "/tmp/tmux inner/sock";
export const OUTER = "/tmp/tmux-outer.sock";
/** Our fixtures inside the container (copied by `prepareLab`). */
export const AGENT_SCRIPT = `${E2E_DIR}/settings-hook-agent.mjs`;
export const WATCH_SCRIPT = `${E2E_DIR}/record-watch.mjs`;
/** A symlink to node named exactly `claude`: started through it, the stand-in's comm is `claude`. */
export const CLAUDE_BIN = `${E2E_DIR}/bin/claude`;

const FIXTURES = join(import.meta.dirname, "fixtures");

export interface AttachedClient {
  readonly tty: string;
  /** The outer session whose one pane runs this client. */
  readonly outerSession: string;
}

export interface ClientView {
  readonly tty: string;
  readonly session: string;
  readonly pane: string;
}

export interface Seen {
  readonly text: string;
  readonly cursor: readonly [number, number];
}

/** Copy the stand-in agent and the record watcher in, and make the `claude` symlink. */
export async function prepareLab(box: Box): Promise<void> {
  await box.container.copyFilesToContainer(
    ["settings-hook-agent.mjs", "record-watch.mjs"].map((name) => ({ source: join(FIXTURES, name), target: `${E2E_DIR}/${name}` })),
  );
  await box.sh(`mkdir -p "$(dirname "$1")" "$(dirname "$2")" && ln -sfn /usr/local/bin/node "$1"`, CLAUDE_BIN, INNER);
}

// The suites that import the lab wait through it (e2e/poll.ts: looks that grow apart, each one an exec).
export const waitUntil = pollUntil;

export class BoxTmuxLab {
  readonly box: Box;
  private outers = 0;

  constructor(box: Box) {
    this.box = box;
  }

  tryTmux(socket: string, ...args: string[]): Promise<Run> {
    return this.box.exec(["tmux", "-S", socket, ...args]);
  }

  async tmux(socket: string, ...args: string[]): Promise<string> {
    const run = await this.tryTmux(socket, ...args);
    if (run.code !== 0) throw new Error(`tmux -S ${socket} ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
    return run.stdout.trimEnd();
  }

  inner(...args: string[]): Promise<string> {
    return this.tmux(INNER, ...args);
  }

  /** The shell command a pane runs for a stand-in agent: exec, so the pane's process is `claude` itself. */
  agentCommand(sessionId: string, marker: string): string {
    return ["exec", CLAUDE_BIN, AGENT_SCRIPT, sessionId, marker].map(shellQuote).join(" ");
  }

  /** Attach a real inner client inside a new outer session (its own server, no config); returns the client's tty. */
  async attach(session: string): Promise<AttachedClient> {
    const before = new Set((await this.clients()).map((client) => client.tty));
    const outerSession = `view-${++this.outers}`;
    const attach = `env -u TMUX tmux -S ${shellQuote(INNER)} attach -t ${shellQuote(session)}`;
    await this.tmux(OUTER, "-f", "/dev/null", "new-session", "-d", "-s", outerSession, "-x", "120", "-y", "40", attach);
    let tty = "";
    await waitUntil(async () => {
      tty = (await this.clients()).find((client) => !before.has(client.tty))?.tty ?? "";
      return tty !== "";
    }, `a client attached to ${session}`);
    return { tty, outerSession };
  }

  /** Attached clients and the session and pane each shows (list-clients formats are per client). */
  async clients(): Promise<ClientView[]> {
    const listed = await this.tryTmux(INNER, "list-clients", "-F", "#{client_tty}\t#{client_session}\t#{pane_id}");
    if (listed.code !== 0 || listed.stdout.trim() === "") return [];
    return listed.stdout
      .trim()
      .split("\n")
      .map((line) => {
        const [tty = "", session = "", pane = ""] = line.split("\t");
        return { tty, session, pane };
      });
  }

  async paneOf(client: AttachedClient): Promise<string | undefined> {
    return (await this.clients()).find((view) => view.tty === client.tty)?.pane;
  }

  /** What the attached client draws (read from its outer pane), and where the terminal cursor is. */
  async seen(client: AttachedClient): Promise<Seen> {
    const [x, y] = (await this.tmux(OUTER, "display-message", "-p", "-t", client.outerSession, "#{cursor_x} #{cursor_y}"))
      .split(" ")
      .map(Number);
    return { text: await this.tmux(OUTER, "capture-pane", "-p", "-t", client.outerSession), cursor: [x as number, y as number] };
  }

  /** Where a pane's cursor is on its client's screen: the pane's offset plus the cursor within the pane. */
  async expectedCursor(pane: string): Promise<[number, number]> {
    const [left, top, x, y] = (await this.inner("display-message", "-p", "-t", pane, "#{pane_left} #{pane_top} #{cursor_x} #{cursor_y}"))
      .split(" ")
      .map(Number);
    return [(left as number) + (x as number), (top as number) + (y as number)];
  }

  /** Type into the terminal the client runs in (the outer pane), as a user would. */
  async keys(client: AttachedClient, ...keys: string[]): Promise<void> {
    await this.tmux(OUTER, "send-keys", "-t", client.outerSession, ...keys);
  }

  async text(client: AttachedClient, literal: string): Promise<void> {
    await this.tmux(OUTER, "send-keys", "-t", client.outerSession, "-l", literal);
  }

  capture(pane: string): Promise<string> {
    return this.inner("capture-pane", "-p", "-t", pane);
  }

  /** Wait until the pane shows `text`: a hook fires as a turn ends, and the UI may draw the reply a moment later. */
  async waitForText(pane: string, text: string): Promise<void> {
    await waitUntil(async () => (await this.capture(pane)).includes(text), `${JSON.stringify(text)} on pane ${pane}`, {
      explain: () => this.capture(pane),
    });
  }

  async stop(): Promise<void> {
    for (const socket of [OUTER, INNER]) await this.tryTmux(socket, "kill-server");
  }
}
