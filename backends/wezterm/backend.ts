// WezTerm: the pane from the captured WEZTERM_PANE, the instance from WEZTERM_UNIX_SOCKET (passed in the environment of
// every `wezterm cli` call, with --no-auto-start so a dead instance is never replaced by a fresh mux server).
// Selection: `activate-pane`, verified by the GUI client's focused_pane_id. Activation: raising the GUI's OS window,
// which activate-pane does not do (wez/wezterm#7990) (docs/focus.md, "WezTerm").
import * as z from "zod/mini";
import { done, failed, skipped, type BackendOutcome, type TerminalBackend, type FocusContext, type Operation } from "../contract.ts";
import type { RunResult } from "../../src/core/exec.ts";
import { raiseGuiProcess } from "./gui-window.ts";

export interface WeztermTarget {
  readonly pane: string;
  /** The instance's socket; undefined: the default instance `wezterm cli` finds by itself. */
  readonly socket: string | undefined;
}

const PANE = /^\d{1,9}$/;

export function parseWeztermEnv(env: Record<string, string | undefined>): WeztermTarget | undefined {
  const pane = env.WEZTERM_PANE;
  if (pane === undefined || !PANE.test(pane)) return undefined;
  const socket = env.WEZTERM_UNIX_SOCKET;
  return { pane: String(Number(pane)), socket: socket !== undefined && socket.startsWith("/") ? socket : undefined };
}

// `wezterm cli list --format json` and `list-clients --format json` (stable JSON, wezterm/src/cli/list*.rs); only the
// fields used here are checked.
const PaneSchema = z.object({ window_id: z.number(), tab_id: z.number(), pane_id: z.number(), workspace: z.string() });
const ClientSchema = z.object({
  pid: z.number(),
  workspace: z.string(),
  focused_pane_id: z.nullable(z.number()),
  idle_time: z.object({ secs: z.number(), nanos: z.number() }),
});
type Client = z.infer<typeof ClientSchema>;

function parseJson<T>(schema: z.ZodMiniType<T>, stdout: string): T[] | undefined {
  try {
    const parsed = z.array(schema).safeParse(JSON.parse(stdout));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const instanceName = (socket: string | undefined) => (socket ? `the WezTerm instance at ${socket}` : "the default WezTerm instance");

/** Why a `wezterm cli` call failed; `unreachable` when the instance itself cannot be reached. */
function explain(result: RunResult, socket: string | undefined): { unreachable: boolean; why: string } {
  if (result.failure === "not-found")
    return { unreachable: true, why: "the wezterm command is not on PATH (macOS: add /Applications/WezTerm.app/Contents/MacOS to PATH)" };
  // The CLI logs `HH:MM:SS.mmm  ERROR  wezterm > <message>; terminating`.
  const message = (result.stderr.trim() || result.failure || `exit ${result.code}`)
    .replace(/^.*?ERROR\s+\S+\s+>\s*/s, "")
    .replace(/; terminating$/, "");
  if (/failed to connect|connecting to|Connection refused|No such file or directory/i.test(message)) {
    return {
      unreachable: true,
      why: `${instanceName(socket)} is not running (${message}); WezTerm was closed or restarted, and pane ids do not survive that`,
    };
  }
  return { unreachable: false, why: `wezterm cli failed: ${message}` };
}

const idle = (client: Client) => client.idle_time.secs + client.idle_time.nanos / 1e9;

export async function focusWezterm({ pane, socket }: WeztermTarget, context: FocusContext): Promise<BackendOutcome> {
  const env = socket ? { ...context.env, WEZTERM_UNIX_SOCKET: socket } : context.env;
  const wezterm = (...args: string[]) => context.run("wezterm", ["cli", "--no-auto-start", ...args], { env });
  const described = `WezTerm pane ${pane} (${socket ?? "default instance"})`;
  const unavailable = (why: string): BackendOutcome => ({
    located: false,
    target: described,
    selection: skipped(why),
    activation: skipped(why),
    unavailable: why,
  });

  const listed = await wezterm("list", "--format", "json");
  if (!listed.ok) {
    const { unreachable, why } = explain(listed, socket);
    return unreachable ? unavailable(why) : { located: false, target: described, selection: failed(why), activation: skipped(why) };
  }
  const panes = parseJson(PaneSchema, listed.stdout);
  if (!panes)
    return {
      located: false,
      target: described,
      selection: failed("unexpected output from wezterm cli list"),
      activation: skipped("not attempted"),
    };
  const entry = panes.find((candidate) => String(candidate.pane_id) === pane);
  if (!entry) {
    const why = `pane ${pane} no longer exists in ${instanceName(socket)}`;
    return { located: false, target: described, selection: failed(why), activation: skipped(why) };
  }
  const where = `WezTerm pane ${pane} (window ${entry.window_id}, tab ${entry.tab_id}; ${socket ?? "default instance"})`;

  const activated = await wezterm("activate-pane", "--pane-id", pane);
  if (!activated.ok) {
    const { unreachable, why } = explain(activated, socket);
    return unreachable
      ? { ...unavailable(why), located: true, target: where }
      : { located: true, target: where, selection: failed(why), activation: skipped(why) };
  }

  // The GUI applies the focus change when it handles the PaneFocused notification; its client then reports the pane.
  const clientsRun = await wezterm("list-clients", "--format", "json");
  const clients = clientsRun.ok ? (parseJson(ClientSchema, clientsRun.stdout) ?? []) : [];
  const gui = clients.filter((client) => client.focused_pane_id === Number(pane)).sort((a, b) => idle(a) - idle(b))[0];
  if (!gui) {
    const focused = [...clients].filter((client) => client.focused_pane_id !== null).sort((a, b) => idle(a) - idle(b))[0];
    const otherWindow = focused ? panes.find((candidate) => candidate.pane_id === focused.focused_pane_id)?.window_id : undefined;
    const why = focused
      ? `after activate-pane, WezTerm's focused pane is ${focused.focused_pane_id}, not ${pane}${otherWindow !== undefined && otherWindow !== entry.window_id ? " (activating a pane in another window is unreliable: wez/wezterm#5536)" : ""}`
      : `after activate-pane, no WezTerm GUI client reports a focused pane${clientsRun.ok ? "" : ` (${explain(clientsRun, socket).why})`}`;
    return { located: true, target: where, selection: failed(why), activation: skipped(why) };
  }
  const selection = done(`pane ${pane} is the focused pane of the WezTerm GUI (pid ${gui.pid})`);
  const windows = new Set(panes.filter((candidate) => candidate.workspace === gui.workspace).map((candidate) => candidate.window_id)).size;
  const activation = await raiseGuiProcess(
    {
      pid: gui.pid,
      name: `WezTerm (pid ${gui.pid})`,
      windows,
      manyWindowsWhy: `wezterm cli cannot activate one window (wez/wezterm#3542), so which one shows pane ${pane} (window ${entry.window_id}) is unknown`,
    },
    context,
  );
  return { located: true, target: where, selection, activation };
}

export const weztermBackend = {
  id: "wezterm",
  displayName: "WezTerm",
  detect: (terminal) => parseWeztermEnv(terminal.env),
  describe: ({ pane, socket }) => `WezTerm pane ${pane} (${socket ?? "default instance"})`,
  focus: focusWezterm,
  /** A tmux or screen client running in a WezTerm pane: show that pane, then raise WezTerm's window. */
  async raise(env, context): Promise<Operation | undefined> {
    const target = parseWeztermEnv(env);
    if (!target) return undefined;
    const outcome = await focusWezterm(target, context);
    const succeeded = outcome.unavailable === undefined && outcome.selection.succeeded && outcome.activation.succeeded;
    return { attempted: true, succeeded, detail: outcome.unavailable ?? `${outcome.selection.detail}; ${outcome.activation.detail}` };
  },
} satisfies TerminalBackend<WeztermTarget>;
