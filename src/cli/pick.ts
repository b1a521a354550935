import { homedir } from "node:os";
import { EXIT_CODES, exitCodeOfFocus } from "../core/errors.ts";
import { runPicker } from "../picker/tui.ts";
import { formatFocus } from "../focus/format.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const PICK_HELP: VerbHelp = {
  usage: "pick [--client <tty>]",
  summary:
    "A full-screen picker, sorted by who needs you, updated live. Every printable character types into the filter.\nKeys: Enter focus; Up/Down, Ctrl-P/Ctrl-N, Ctrl-K/Ctrl-J, Tab/Shift-Tab move; Alt-1..Alt-9 focus that row;\nCtrl-R answer the waiting row (its dialog shown: a digit sends that option, Esc cancels);\nCtrl-T preview the pane; Ctrl-X remove ended sessions; Ctrl-U clear the filter, Ctrl-W its last word;\nEsc clear the filter or close; Ctrl-C, Ctrl-D, Ctrl-G, Ctrl-Q close.",
  options: [["--client <tty>", "the tmux client to move on Enter (the popup binding passes #{client_tty})"]],
  examples: ["tongs-agents pick"],
};

export const pickVerb: Verb = withHelp(PICK_HELP, async (args, context, io) => {
  const parsed = parse(args, { client: { type: "string" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const client = typeof parsed.values.client === "string" && parsed.values.client !== "" ? parsed.values.client : undefined;
  const answering = {
    stateDir: context.stateDir,
    processes: context.processes,
    listProcesses: context.listProcesses,
    env: context.env,
    run: context.run,
    watch: context.watch,
  };
  // The picker draws on the terminal itself: every text in a frame goes through render.ts fit(), which makes it safe.
  // eslint-disable-next-line no-restricted-properties
  const exit = await runPicker(io.terminal ?? { input: process.stdin, output: process.stdout }, {
    stateDir: context.stateDir,
    processes: context.processes,
    ...(context.listProcesses ? { listProcesses: context.listProcesses } : {}),
    env: context.env,
    watch: context.watch,
    // Loaded when Enter is pressed, not before the first screen.
    focus: async (row) => {
      if (row.host === "")
        return (await import("../focus/service.ts")).focusSession(row.session.id, {
          stateDir: context.stateDir,
          processes: context.processes,
          env: context.env,
          client,
          run: context.run,
        });
      const result = await (await import("./pick-hosts.ts")).focusHostRow(row, { ...context, client });
      if (!result) throw new Error(`${row.host} is no longer a configured host`);
      return result;
    },
    // Asked after the first screen: reading the hosts' config and loading their modules costs that screen nothing.
    hosts: async () => (await import("./pick-hosts.ts")).pickerHosts(context),
    prune: async () => {
      const result = await (await import("../store/prune.ts")).prune({ stateDir: context.stateDir, processes: context.processes });
      return result.ok ? result.removed.filter((entry) => entry.kind === "record").length : 0;
    },
    // Loaded when Ctrl-R is pressed on a waiting row: the same guarded path as `answer`, tied to the wait and the
    // dialog the panel showed.
    readDialog: async (row) => (await import("../answer/service.ts")).readOpenDialog({ query: row.session.id }, answering),
    answer: async (row, open, number) => {
      const service = await import("../answer/service.ts");
      const request = { query: row.session.id, waitId: open.wait.id, shown: open.dialog, by: "the picker" };
      const answered = await service.answerSession(request, { kind: "choice", number }, answering);
      if (!answered.ok) return answered.detail;
      const unrecorded = answered.unrecorded === undefined ? "" : ` (explain will not show it: ${answered.unrecorded})`;
      return service.answeredLine(answered) + unrecorded;
    },
    // Loaded when the preview is asked for: it reads the pane through the backend that owns it (every backend).
    capture: async (session, lines) =>
      (await import("../focus/preview.ts")).previewSession(session, lines, { run: context.run, env: context.env }),
    now: Date.now,
    home: context.env.HOME ?? homedir(),
    color: io.color,
  });
  if (exit.kind === "no-terminal") {
    io.stderr(`tongs-agents: ${exit.detail}`);
    return EXIT_CODES.error;
  }
  if (exit.kind === "cancelled") return EXIT_CODES.ok;
  if (exit.result.state !== "complete")
    io.stderr("host" in exit.result ? (await import("./focus.ts")).formatHostFocus(exit.result) : formatFocus(exit.result, io.home));
  return exitCodeOfFocus(exit.result.state);
});
