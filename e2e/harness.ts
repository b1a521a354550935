// Stand-in harness processes inside a container (fixtures/harness.mjs), each in its own tmux window, the way an agent
// runs in a terminal: its hooks inherit TMUX and TMUX_PANE, and the hook finds it in its process ancestry by name.
import { shellQuote } from "../src/core/shell-quote.ts";
import { E2E_DIR, type Box } from "./containers.ts";

export const TMUX_SOCKET = "/tmp/e2e.tmux";
const TMUX_SESSION = "e2e";

export interface HookReply {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly pid: number;
}

export interface BoxHarness {
  /** The process name: the symlink to node it was started through (claude, pi). */
  readonly name: string;
  readonly pid: number;
  /** The tmux pane it runs in, e.g. %3. */
  readonly pane: string;
  /** Run argv as a child of this process, payload on stdin. */
  run(argv: readonly string[], payload: string): Promise<HookReply>;
  /** Run each in turn, each as a child of this process (each starts after the one before ended): one request. */
  runEach(commands: readonly { argv: readonly string[]; payload: string }[]): Promise<HookReply[]>;
}

async function request<T>(box: Box, socket: string, message: unknown): Promise<T> {
  const encoded = Buffer.from(JSON.stringify(message)).toString("base64");
  const result = await box.exec(["node", `${E2E_DIR}/harness-client.mjs`, socket, encoded]);
  if (result.code !== 0 || result.stdout.trim() === "") throw new Error(`harness-client ${socket} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** A tmux server in the container (idempotent). Runs without a terminal: new-session -d. */
export async function ensureTmux(box: Box): Promise<void> {
  await box.sh(
    `tmux -S "$1" has-session -t "$2" 2>/dev/null || tmux -S "$1" new-session -d -s "$2" -x 160 -y 48`,
    TMUX_SOCKET,
    TMUX_SESSION,
  );
}

/** Start a harness stand-in named `name` in a new tmux window; `env` is the environment its hooks inherit. */
export async function startHarness(box: Box, name: string, id: string, env: Record<string, string>): Promise<BoxHarness> {
  await ensureTmux(box);
  const executable = `${E2E_DIR}/bin/${name}`;
  await box.sh(`mkdir -p "$(dirname "$1")" && ln -sfn /usr/local/bin/node "$1"`, executable);
  const socket = `/tmp/harness-${id}.sock`;
  const assignments = Object.entries(env).map(([key, value]) => shellQuote(`${key}=${value}`));
  // tmux runs the window's command with `sh -c`; exec so the harness is the pane's process itself.
  const command = ["exec", "env", ...assignments, shellQuote(executable), shellQuote(`${E2E_DIR}/harness.mjs`), shellQuote(socket)].join(
    " ",
  );
  const pane = (
    await box.sh(`tmux -S "$1" new-window -d -t "$2:" -n "$3" -P -F '#{pane_id}' "$4"`, TMUX_SOCKET, TMUX_SESSION, id, command)
  ).trim();
  const ping = await request<{ pid: number; pane: string; tmux: string }>(box, socket, { ping: true });
  if (ping.pane !== pane) throw new Error(`harness ${id} reports pane ${ping.pane}, tmux said ${pane}`);
  return {
    name,
    pid: ping.pid,
    pane,
    run: (argv, payload) => request<HookReply>(box, socket, { argv, payload }),
    runEach: (commands) => request<HookReply[]>(box, socket, { batch: commands }),
  };
}
