// `tongs-agents list --watch`: the list kept on screen and drawn again when a session changes. The trigger is the
// sessions dir (inotify: the drainer writes a record, a reader applies what a harness stated), so a change shows as
// soon as it is written, not at the next tick of a timer. Ages and liveness (a process that died without a word writes
// nothing) are checked again every few seconds, and the screen is drawn only when its text changed. The alternate
// screen keeps the shell's scrollback as it was; q or Ctrl-C (also SIGINT, SIGTERM, SIGHUP) give the terminal back.
import { watch, type FSWatcher } from "node:fs";
import { EXIT_CODES } from "../core/errors.ts";
import { sessionsDirOf } from "../store/paths.ts";
import { isSettleMarker } from "../store/sessions-watch.ts";
import { fail, renderOutput, type Output, type VerbIo } from "./io.ts";

const ENTER_SCREEN = "\u001b[?1049h\u001b[?25l";
const LEAVE_SCREEN = "\u001b[?25h\u001b[?1049l";
/** Changes this close together are drawn once (a burst of records written by one drainer pass). */
const GATHER_MS = 30;
/** How often ages and liveness are looked at again; drawn only when the text differs. */
const RECHECK_MS = 5000;

/** The keys that quit: q, Q, Ctrl-C, Ctrl-D. */
const QUIT_KEYS = new Set(["q", "Q", "\u0003", "\u0004"]);

/** What is drawn: the list for this width, or why there is none. */
export type ListFrame = (width: number) => Promise<{ problem: string } | { text: Output }>;

export async function watchList(
  io: VerbIo,
  { stateDir, title, frame }: { stateDir: string; title: string; frame: ListFrame },
): Promise<number> {
  // This process's terminal (the keypress server never runs --watch: the client keeps it here, src/cli/client.ts).
  // eslint-disable-next-line no-restricted-properties
  const { input, output } = io.terminal ?? { input: process.stdin, output: process.stdout };
  if (!input.isTTY || !output.isTTY)
    return fail(
      { ok: false, reason: "usage", detail: "list --watch needs a terminal (stdin and stdout a TTY); `list --json` suits scripts" },
      io,
      false,
    );

  let last = "";
  let closed = false;
  let drawing: Promise<void> | undefined;
  let again = false;
  const draw = async (): Promise<void> => {
    if (drawing) {
      again = true;
      return drawing;
    }
    drawing = (async () => {
      do {
        again = false;
        const width = output.columns ?? 80;
        const listed = await frame(width);
        const body = "problem" in listed ? `tongs-agents: ${listed.problem}` : renderOutput(listed.text, io.color);
        const header = renderOutput([{ sgr: 2, text: `${title}: q or Ctrl-C quits` }], io.color);
        const lines = [header, "", ...body.split("\n")].slice(0, Math.max(1, (output.rows ?? 24) - 1));
        const text = `\u001b[H${lines.join("\u001b[K\r\n")}\u001b[K\u001b[J`;
        if (!closed && text !== last) {
          last = text;
          output.write(text);
        }
      } while (again && !closed);
    })().finally(() => (drawing = undefined));
    return drawing;
  };

  output.write(ENTER_SCREEN);
  input.setRawMode(true);
  input.resume();
  await draw();

  return new Promise<number>((resolve) => {
    let watcher: FSWatcher | undefined;
    let gather: NodeJS.Timeout | undefined;
    const recheck = setInterval(() => void draw(), RECHECK_MS);
    const onResize = () => {
      last = "";
      void draw();
    };
    const finish = () => {
      if (closed) return;
      closed = true;
      watcher?.close();
      clearTimeout(gather);
      clearInterval(recheck);
      input.off("data", onData);
      output.off("resize", onResize);
      for (const signal of SIGNALS) process.off(signal, finish);
      input.setRawMode(false);
      input.pause();
      output.write(LEAVE_SCREEN);
      resolve(EXIT_CODES.ok);
    };
    const onData = (data: Buffer) => {
      if ([...data.toString("utf8")].some((key) => QUIT_KEYS.has(key))) finish();
    };
    input.on("data", onData);
    output.on("resize", onResize);
    for (const signal of SIGNALS) process.on(signal, finish);
    try {
      watcher = watch(sessionsDirOf(stateDir), { persistent: false }, (_event, name) => {
        if (isSettleMarker(name)) return; // a reader's marker (sessions-watch.ts), not a change of any session
        clearTimeout(gather);
        gather = setTimeout(() => void draw(), GATHER_MS);
      });
      watcher.on("error", () => undefined);
    } catch {
      // No sessions dir yet, or no inotify: the recheck still draws every change, within its period.
    }
  });
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
