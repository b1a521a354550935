// The picker in a terminal: alternate screen, raw keys, live updates (the sessions dir is watched, ages and liveness
// refresh every two seconds, process discovery every few seconds), a pane preview, and focus on Enter. Configured SSH
// hosts are read after the first screen, each on its own: a host's rows join when its read returns, so a slow host
// never delays this machine's rows, and a host that gave none is shown as one line saying why.
import { isSettleMarker, type SessionsWatch } from "../store/sessions-watch.ts";
import { watch, type FSWatcher } from "node:fs";
import type { ListProcesses } from "../core/process-table.ts";
import type { FocusResult } from "../focus/result.ts";
import type { HostFocusResult } from "../hosts/focus.ts";
import { branchOf } from "../fleet/git-branch.ts";
import { sessionsDirOf } from "../store/paths.ts";
import type { ProcessSource } from "../core/proc.ts";
import { loadFleet } from "../fleet/sessions.ts";
import type { SessionView } from "../fleet/view.ts";
import type { OpenDialog } from "../answer/service.ts";
import {
  answerDone,
  buildRows,
  decodeKeys,
  handleKey,
  initialModel,
  mergeRows,
  selectedIndex,
  visibleRows,
  withDialog,
  withRows,
  type PickerModel,
  type Row,
} from "./model.ts";
import { renderFrame } from "./render.ts";

export interface PickerContext {
  readonly stateDir: string;
  readonly processes: ProcessSource;
  readonly listProcesses?: ListProcesses;
  /** The caller's environment, for process discovery. */
  readonly env?: NodeJS.ProcessEnv;
  /** The keypress server's watch on the sessions dir (src/store/sessions-watch.ts). */
  readonly watch?: SessionsWatch;
  /** Focus a row: this machine's by id, a host's across the hop. */
  readonly focus: (row: Row) => Promise<PickerFocus>;
  /** The configured hosts, asked once after the first screen (none: this machine only). */
  readonly hosts?: () => Promise<readonly HostSource[]>;
  /** Remove ended and stale records; returns how many went. */
  readonly prune: () => Promise<number>;
  /** A row's open wait and the dialog its pane shows (the answer panel, Ctrl-R), or why there is none. */
  readonly readDialog: (row: Row) => Promise<OpenDialog | { readonly ok: false; readonly detail: string }>;
  /**
   * Send option `number` of the dialog the panel showed, through the answer service's guards (that wait, that dialog
   * still on screen, or nothing); a line saying what was done or why nothing was.
   */
  readonly answer: (row: Row, open: OpenDialog, number: number) => Promise<string>;
  /** The selected session's pane as text, or why there is none. */
  readonly capture: (session: SessionView, lines: number) => Promise<{ lines: string[] } | { note: string }>;
  readonly now: () => number;
  readonly home: string;
  readonly color: boolean;
  /** How often ages and liveness refresh, and how often discovery runs (ms). */
  readonly refreshMs?: number;
  readonly discoverMs?: number;
  /** How often each host is read again (ms); a host still being read is not asked twice. */
  readonly hostsMs?: number;
}

export type PickerFocus = FocusResult | HostFocusResult;

/** One configured host as the picker reads it. */
export interface HostSource {
  readonly name: string;
  /** One bounded read: the host's rows, and a line saying why when the read was not fine. */
  readonly read: () => Promise<{ rows: readonly Row[]; note?: string }>;
}

export interface PickerTerminal {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  /** The terminal went away (the keypress server's client left): close as on SIGHUP. */
  readonly hangup?: AbortSignal;
}

export type PickerExit = { kind: "cancelled" } | { kind: "focused"; result: PickerFocus } | { kind: "no-terminal"; detail: string };

const ENTER_SCREEN = "\u001b[?1049h\u001b[?25l";
const LEAVE_SCREEN = "\u001b[?25h\u001b[?1049l";

export async function runPicker(terminal: PickerTerminal, deps: PickerContext): Promise<PickerExit> {
  const { input, output } = terminal;
  if (!input.isTTY || !output.isTTY)
    return {
      kind: "no-terminal",
      detail: "tongs-agents pick needs a terminal (stdin and stdout must be a TTY); `tongs-agents list` works in scripts",
    };

  const branches = new Map<string, string | undefined>();
  // Discovery runs less often than the records reload: between runs, the last discovered processes stay listed.
  let discovered: SessionView[] = [];
  const load = async (discover: boolean) => {
    const fleet = await loadFleet(deps, { discover });
    let sessions = fleet.sessions;
    if (discover) discovered = sessions.filter((session) => session.identity === "discovered");
    else {
      const claimed = new Set(sessions.filter((session) => session.status !== "ended").map((session) => session.pid));
      sessions = [...sessions, ...discovered.filter((session) => !claimed.has(session.pid))];
    }
    return buildRows(sessions, fleet.seen, (cwd) => branchOf(cwd, branches));
  };

  // The hosts' last rows and notes, by host, in the configured order; this machine's rows alone until one answers.
  let localRows: Row[] = [];
  let hostNames: readonly string[] = [];
  const hostRows = new Map<string, readonly Row[]>();
  const hostNotes = new Map<string, string>();
  const allRows = (): Row[] => (hostRows.size === 0 ? localRows : mergeRows([localRows, ...hostRows.values()]));
  const notes = (): string[] => hostNames.flatMap((name) => hostNotes.get(name) ?? []);

  // First screen from the records alone; process discovery (a `ps` run) and the hosts follow right after.
  localRows = await load(false);
  let model: PickerModel = initialModel(localRows);
  let preview: { id: string; lines?: string[]; note?: string } | undefined;
  let closed = false;
  let busy = false;

  const paint = () => {
    if (closed) return;
    const width = output.columns ?? 80;
    const height = output.rows ?? 24;
    const selected = visibleRows(model)[selectedIndex(model)];
    const shownPreview = preview && selected && preview.id === selected.session.id ? preview : undefined;
    const lines = renderFrame(model, {
      width,
      height,
      now: deps.now(),
      color: deps.color,
      home: deps.home,
      preview: shownPreview?.lines,
      ...(shownPreview?.note ? { previewNote: shownPreview.note } : {}),
    });
    output.write(`\u001b[H${lines.join("\u001b[K\r\n")}\u001b[K\u001b[J`);
  };

  const refreshPreview = async () => {
    const selected = visibleRows(model)[selectedIndex(model)];
    if (!model.preview || !selected) return;
    const id = selected.session.id;
    // The pane is on the host: capturing here would read this machine's tmux.
    const captured =
      selected.host === "" ? await deps.capture(selected.session, output.rows ?? 24) : { note: `no preview of ${selected.host}'s panes` };
    preview = "lines" in captured ? { id, lines: captured.lines } : { id, note: captured.note };
    paint();
  };

  /** Say on the message line that `what` failed. */
  const showFailure = (what: string, error: unknown) => {
    model = { ...model, message: `${what} failed: ${error instanceof Error ? error.message : String(error)}` };
    paint();
  };

  let reloading: Promise<void> | undefined;
  // Never rejects (timers and the watcher call it without waiting): a failed reload keeps the rows and says why.
  const reload = (discover: boolean) =>
    (reloading ??= load(discover)
      .then(
        (rows) => {
          localRows = rows;
          model = withRows(model, allRows(), notes());
          paint();
        },
        (error: unknown) => showFailure("reading sessions", error),
      )
      .finally(() => (reloading = undefined)));

  const reading = new Set<string>();
  const readHost = (source: HostSource) => {
    if (reading.has(source.name)) return;
    reading.add(source.name);
    void source
      .read()
      .then(
        ({ rows, note }) => {
          hostRows.set(source.name, rows);
          if (note) hostNotes.set(source.name, note);
          else hostNotes.delete(source.name);
        },
        (error: unknown) => {
          hostRows.delete(source.name);
          hostNotes.set(source.name, `${source.name}: failed (${error instanceof Error ? error.message : String(error)})`);
        },
      )
      .finally(() => {
        reading.delete(source.name);
        if (closed) return;
        model = withRows(model, allRows(), notes());
        paint();
      });
  };

  output.write(ENTER_SCREEN);
  input.setRawMode(true);
  input.resume();
  paint();

  return new Promise<PickerExit>((resolve) => {
    let watcher: FSWatcher | undefined;
    let debounce: NodeJS.Timeout | undefined;
    const timers: NodeJS.Timeout[] = [];
    const finish = (exit: PickerExit) => {
      if (closed) return;
      closed = true;
      watcher?.close();
      clearTimeout(debounce);
      for (const timer of timers) clearInterval(timer);
      input.off("data", onData);
      output.off("resize", paint);
      process.off("SIGTERM", onSignal);
      process.off("SIGHUP", onSignal);
      terminal.hangup?.removeEventListener("abort", onSignal);
      input.setRawMode(false);
      input.pause();
      output.write(LEAVE_SCREEN);
      resolve(exit);
    };
    const onSignal = () => finish({ kind: "cancelled" });
    // A focus or prune that throws (it should report, not throw) is shown, and the picker stays usable.
    const failed = (what: string) => (error: unknown) => {
      busy = false;
      showFailure(what, error);
    };

    const onData = (data: Buffer) => {
      for (const key of decodeKeys(data.toString("utf8"))) {
        if (closed || busy) return;
        const { model: next, effect } = handleKey(model, key);
        model = next;
        if (effect.kind === "quit") return finish({ kind: "cancelled" });
        if (effect.kind === "selection-changed") void refreshPreview();
        if (effect.kind === "focus") {
          busy = true;
          void deps
            .focus(effect.row)
            .then((result) => {
              busy = false;
              // Nothing to show for it: say why and stay open, rather than closing on a failure.
              if (result.state === "complete" || result.state === "partial") finish({ kind: "focused", result });
              else {
                model = { ...model, message: `${result.state}: ${result.detail}` };
                paint();
              }
            })
            .catch(failed("focus"));
        }
        if (effect.kind === "read-dialog") {
          const key = effect.row.key;
          void deps.readDialog(effect.row).then(
            (read) => {
              model = withDialog(model, key, read);
              paint();
            },
            (error: unknown) => {
              model = answerDone(model, "");
              showFailure("reading the dialog", error);
            },
          );
        }
        if (effect.kind === "answer") {
          busy = true;
          void deps
            .answer(effect.row, effect.open, effect.number)
            .then((said) => {
              busy = false;
              model = answerDone(model, said);
              paint();
            })
            .catch((error: unknown) => {
              model = answerDone(model, "");
              failed("answering")(error);
            });
        }
        if (effect.kind === "prune") {
          busy = true;
          void deps
            .prune()
            .then(async (removed) => {
              busy = false;
              model = { ...model, message: `removed ${removed} ended or stale session${removed === 1 ? "" : "s"}` };
              await reload(false);
            })
            .catch(failed("clearing ended sessions"));
        }
      }
      paint();
    };

    input.on("data", onData);
    output.on("resize", paint);
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal);
    if (terminal.hangup?.aborted) onSignal();
    terminal.hangup?.addEventListener("abort", onSignal);
    try {
      watcher = watch(sessionsDirOf(deps.stateDir), { persistent: false }, (_event, name) => {
        // The keypress server's listings (this picker's own, when it runs there) make and remove settle markers.
        if (isSettleMarker(name)) return;
        clearTimeout(debounce);
        debounce = setTimeout(() => void reload(false), 100);
      });
      watcher.on("error", () => undefined);
    } catch {
      // no inotify: the periodic refresh still keeps the list current
    }
    timers.push(setInterval(() => void reload(false), deps.refreshMs ?? 2000));
    timers.push(setInterval(() => void reload(true), deps.discoverMs ?? 5000));
    void reload(true);
    if (deps.hosts)
      void deps.hosts().then(
        (sources) => {
          if (closed || sources.length === 0) return;
          hostNames = sources.map((source) => source.name);
          for (const source of sources) readHost(source);
          timers.push(setInterval(() => sources.forEach(readHost), deps.hostsMs ?? 5000));
        },
        (error: unknown) => showFailure("reading the hosts", error),
      );
  });
}
