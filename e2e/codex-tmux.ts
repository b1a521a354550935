// tmux inside a Codex container: an "inner" server whose panes run the real codex UI, driven with send-keys, and an
// "outer" server whose pane runs an attached inner client, so a test reads exactly what that client draws (the same
// proof as test/live/tmux-lab.ts on the host; shared/facts/terminals.md "Proof of what a client really shows").
import type { Box } from "./containers.ts";
import { pollUntil } from "./poll.ts";
import { TMUX_SOCKET } from "./harness.ts";

export const INNER = TMUX_SOCKET;
export const OUTER = "/tmp/outer.tmux";
/** Long-running helpers (the provider, the record watcher) live on their own server, out of the agents' way. */
export const SERVICES = "/tmp/services.tmux";

export interface Pane {
  readonly id: string;
  readonly pid: number;
  readonly tty: string;
}

export interface Client {
  readonly tty: string;
  readonly outerSession: string;
}

/**
 * Poll until `check` returns a value other than undefined (usable in beforeAll, where expect.poll is not); a look that
 * throws is retried, and its error named on a timeout (e2e/poll.ts: looks that grow apart). The timeout is generous:
 * it bounds a hang, it does not measure speed.
 */
export async function waitUntil<T>(check: () => Promise<T | undefined>, what: string, { timeout = 60_000 } = {}): Promise<T> {
  let last: unknown;
  const look = async () => {
    try {
      return await check();
    } catch (error) {
      last = error;
      return undefined;
    }
  };
  return await pollUntil(look, what, {
    timeoutMs: timeout,
    explain: async () => (last === undefined ? "" : `the last look threw: ${String(last)}`),
  });
}

export async function tmux(box: Box, socket: string, ...args: string[]): Promise<string> {
  const run = await box.exec(["tmux", "-S", socket, ...args]);
  if (run.code !== 0) throw new Error(`tmux -S ${socket} ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return run.stdout.replace(/\n$/, "");
}

const PANE_FORMAT = "#{pane_id} #{pane_pid} #{pane_tty}";

function parsePane(line: string): Pane {
  const [id = "", pid = "", tty = ""] = line.trim().split(" ");
  return { id, pid: Number(pid), tty };
}

/** A new inner session (`new-session`) or a split of an existing pane, running `command` (via `sh -c`) in `cwd`. */
export async function openPane(box: Box, where: { session: string } | { split: string }, cwd: string, command: string): Promise<Pane> {
  const placement =
    "session" in where ? ["new-session", "-d", "-s", where.session, "-x", "160", "-y", "48"] : ["split-window", "-d", "-t", where.split];
  return parsePane(await tmux(box, INNER, ...placement, "-c", cwd, "-P", "-F", PANE_FORMAT, command));
}

export const capture = (box: Box, pane: string) => tmux(box, INNER, "capture-pane", "-p", "-t", pane);

/** Type text into a pane literally, wait until the UI shows it, then press Enter (a separate keystroke). */
export async function submit(box: Box, pane: string, text: string): Promise<void> {
  await tmux(box, INNER, "send-keys", "-t", pane, "-l", text);
  await waitUntil(async () => ((await capture(box, pane)).includes(text) ? true : undefined), `${pane} to show the typed text`, {
    timeout: 30_000,
  });
  await tmux(box, INNER, "send-keys", "-t", pane, "Enter");
}

export const keys = (box: Box, pane: string, ...names: string[]) => tmux(box, INNER, "send-keys", "-t", pane, ...names);

/** Attach a real inner client to `session` inside an outer pane; returns the client's tty. */
export async function attach(box: Box, session: string): Promise<Client> {
  const outerSession = `view-${session}`;
  const before = new Set((await clients(box)).map((client) => client.tty));
  await tmux(
    box,
    OUTER,
    "new-session",
    "-d",
    "-s",
    outerSession,
    "-x",
    "120",
    "-y",
    "40",
    `env -u TMUX tmux -S ${INNER} attach -t ${session}`,
  );
  const tty = await waitUntil(
    async () => (await clients(box)).find((client) => !before.has(client.tty))?.tty,
    `a client attached to ${session}`,
    { timeout: 30_000 },
  );
  return { tty, outerSession };
}

/** Attached clients and the pane each shows (list-clients formats are evaluated per client). */
export async function clients(box: Box): Promise<{ tty: string; session: string; pane: string }[]> {
  const run = await box.exec(["tmux", "-S", INNER, "list-clients", "-F", "#{client_tty}\t#{client_session}\t#{pane_id}"]);
  if (run.code !== 0 || run.stdout.trim() === "") return [];
  return run.stdout
    .trim()
    .split("\n")
    .map((line) => {
      const [tty = "", session = "", pane = ""] = line.split("\t");
      return { tty, session, pane };
    });
}

/** What the attached client draws (read from the outer pane) and where the terminal cursor is. */
export async function seen(box: Box, client: Client): Promise<{ text: string; cursor: [number, number] }> {
  const [x, y] = (await tmux(box, OUTER, "display-message", "-p", "-t", client.outerSession, "#{cursor_x} #{cursor_y}"))
    .split(" ")
    .map(Number);
  return { text: await tmux(box, OUTER, "capture-pane", "-p", "-t", client.outerSession), cursor: [x as number, y as number] };
}

/** Where a pane's cursor appears on its client's screen: the pane's offset plus the cursor within the pane. */
export async function expectedCursor(box: Box, pane: string): Promise<[number, number]> {
  const [left, top, x, y] = (
    await tmux(box, INNER, "display-message", "-p", "-t", pane, "#{pane_left} #{pane_top} #{cursor_x} #{cursor_y}")
  )
    .split(" ")
    .map(Number);
  return [(left as number) + (x as number), (top as number) + (y as number)];
}
