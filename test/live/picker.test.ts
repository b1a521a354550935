// Live: the picker in a real pseudo-terminal (node-pty) and in a real tmux popup, over records written by the real
// hook from agents running in real tmux panes.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import pty from "@lydell/node-pty";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionsDirOf } from "../../src/store/paths.ts";
import { CLI_BIN, keypressServerStatus, ROOT } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor, type AgentPane, type AttachedClient } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "pick");
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

/** A terminal escape sequence, and the end of a line once escapes are replaced by NUL. */
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\u001b\[[0-9;?]*[A-Za-z]/g;
// eslint-disable-next-line no-control-regex
const LINE_END = /\u0000\r*\n/;

/** The picker repaints whole frames from the top-left corner: the last frame, without colours, is the screen. */
function lastFrame(output: string): string[] {
  const frame = output.split("\u001b[H").at(-1) ?? "";
  return frame
    .replace(ESCAPE_SEQUENCE, "\u0000")
    .split(LINE_END)
    .map((line) => line.replaceAll("\u0000", ""));
}

function expectShows(client: AttachedClient, agent: AgentPane): void {
  expect(lab.clients().find((attached) => attached.tty === client.tty)?.pane).toBe(agent.pane);
  expect(lab.seen(client).text).toContain(agent.marker);
}

/** `tongs-agents pick` in a real pty, 110x24; `served`: through the keypress server when one runs (else never). */
function openPicker(args: string[], served = false) {
  const picker = pty.spawn(process.execPath, [CLI_BIN, "pick", ...args], {
    cols: 110,
    rows: 24,
    cwd: ROOT,
    env: { ...sandbox.env, TERM: "xterm-256color", TONGS_AGENTS_SERVER: served ? "" : "off" } as Record<string, string>,
  });
  let output = "";
  picker.onData((data) => (output += data));
  const exited = new Promise<number>((resolve) => picker.onExit(({ exitCode }) => resolve(exitCode)));
  return { picker, output: () => output, exited };
}

const serverStatus = () => keypressServerStatus(sandbox.env);

// The same user-visible behaviour in the picker's own process and drawn by the keypress server on the caller's terminal.
describe.each([
  ["in its own process", false],
  ["through the keypress server", true],
])("pick in a real pseudo-terminal (node-pty), %s", (_how, served) => {
  beforeEach(() => {
    if (served) expect(spawnSync(process.execPath, [CLI_BIN, "serve", "--detach"], { env: sandbox.env }).status).toBe(0);
  });
  afterEach(() => {
    if (served) spawnSync(process.execPath, [CLI_BIN, "serve", "--stop"], { env: sandbox.env });
  });

  it("renders sessions by attention, filters as you type, updates live, and Enter focuses through the pinned client", async () => {
    const home = lab.newSession("home");
    const target = lab.newWindow("home");
    await lab.ready(home, target);
    const client = await lab.attach("home");
    const { picker, output: shown, exited } = openPicker(["--client", client.tty], served);
    try {
      // Count our agents' rows, not the header: process discovery also lists harness processes running elsewhere on
      // the machine.
      const started = () => lastFrame(shown()).filter((line) => /^[1-9 ][ >]○ started\s+claude/.test(line)).length;
      await waitFor(() => started() === 2, "the first screen");
      expect(lastFrame(shown())[0]).toMatch(/^tongs-agents {2}\d+ sessions/);

      if (served) expect(serverStatus()).toMatchObject({ served: 1, terminals: 1 });

      // Live: a third agent starts while the picker is open.
      const third = lab.newWindow("home");
      await lab.ready(third);
      await waitFor(() => started() === 3, "the new session to appear without a key press");

      // The terminal shrinks: the next frame fits it (through the server, the client forwards the new size).
      picker.resize(100, 12);
      await waitFor(() => shown().endsWith("\u001b[J") && lastFrame(shown()).length === 12, "a frame of 12 lines");
      picker.resize(110, 24);

      // Letters that used to be keys (p preview, q quit) are typed into the filter; Ctrl-U clears it.
      picker.write("pq");
      await waitFor(() => lastFrame(shown())[1]?.trimEnd() === "> pq", "pq in the filter");
      expect(lastFrame(shown()).some((line) => line.startsWith("── preview"))).toBe(false);
      picker.write("\u0015");
      await waitFor(() => started() === 3, "the filter to clear");

      // Type the target's own session id: exactly one row remains.
      picker.write(target.sessionId);
      await waitFor(() => lastFrame(shown()).filter((line) => /^[1-9][ >]/.test(line)).length === 1, "the filter to leave one row");
      picker.write("\r");
      expect(await exited).toBe(0);
      expectShows(client, target);
      if (served) expect(serverStatus()).toMatchObject({ served: 1, terminals: 0 });
    } finally {
      picker.kill();
    }
  });

  it("closes when its terminal goes (the pty's process killed, as a popup closing does)", async () => {
    const agent = lab.newSession("home");
    await lab.ready(agent);
    const { picker, output: shown, exited } = openPicker([], served);
    await waitFor(() => lastFrame(shown())[0]?.startsWith("tongs-agents") === true, "the first screen");
    picker.kill("SIGKILL");
    await exited;
    // Through the server, the picker it drew ends with the connection; on its own, with its process.
    if (served) await waitFor(() => serverStatus().terminals === 0, "the server's picker to close");
  });
});

describe("pick in a real pseudo-terminal (node-pty)", () => {
  it("Ctrl-X removes ended sessions (prune, loaded only then), says how many, and stays open", async () => {
    const live = lab.newSession("home");
    const ended = lab.newWindow("home", { events: ["session-start", "session-end"] });
    await lab.ready(live, ended);
    const { picker, output: shown, exited } = openPicker([]);
    const rows = (status: string) => lastFrame(shown()).filter((line) => new RegExp(`^[1-9 ][ >]. ${status}\\s+claude`).test(line)).length;
    try {
      await waitFor(() => rows("started") === 1 && rows("ended") === 1, "a started and an ended session");
      picker.write("\u0018");
      await waitFor(() => lastFrame(shown()).some((line) => line.includes("removed 1 ended or stale session")), "the prune message");
      await waitFor(() => rows("ended") === 0, "the ended row to go");
      expect(rows("started")).toBe(1);
      expect(readdirSync(sessionsDirOf(sandbox.stateDir)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name))).toHaveLength(1);
      picker.write("\u0003"); // Ctrl-C
      expect(await exited).toBe(0);
    } finally {
      picker.kill();
    }
  });

  it("says why in one line when there is no terminal", () => {
    const run = spawnSync(process.execPath, [CLI_BIN, "pick"], { env: sandbox.env, input: "", encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      "tongs-agents: tongs-agents pick needs a terminal (stdin and stdout must be a TTY); `tongs-agents list` works in scripts",
    );
  });
});

describe("pick in a real tmux popup", () => {
  it("opens from a key binding, and Alt-1 lands the client that opened it on the chosen row's pane", async () => {
    const home = lab.newSession("home");
    const target = lab.newSession("elsewhere");
    const third = lab.split(home.pane);
    await lab.ready(home, target, third);
    const client = await lab.attach("home");
    const pick = `'${process.execPath}' '${CLI_BIN}' pick --client '#{client_tty}'; true`;
    lab.tmux(
      lab.inner,
      "bind-key",
      "-T",
      "root",
      "F6",
      "run-shell",
      "-b",
      `tmux -S '${lab.inner}' display-popup -c '#{client_tty}' -w 90% -h 80% -E "${pick}"`,
    );
    lab.tmux(lab.outer, "send-keys", "-t", client.outerSession, "F6");
    await waitFor(
      () =>
        lab
          .seen(client)
          .text.split("\n")
          .filter((line) => /○ started\s+claude/.test(line)).length === 3,
      "the picker to open in the popup",
    );
    lab.tmux(lab.outer, "send-keys", "-t", client.outerSession, "-l", target.sessionId);
    await waitFor(
      () =>
        lab
          .seen(client)
          .text.split("\n")
          .filter((line) => /[1-9][ >][○●▶◆✓]/.test(line)).length === 1,
      "the filter to leave one row",
    );
    // Alt-1 (tmux passes M-1 to the popup as Esc 1): focus the first shown row.
    lab.tmux(lab.outer, "send-keys", "-t", client.outerSession, "M-1");
    await waitFor(
      () => lab.clients().find((attached) => attached.tty === client.tty)?.pane === target.pane,
      "the client to land on the target",
    );
    expectShows(client, target);
    // The session the popup lived in is still there.
    expect(lab.tryTmux(lab.inner, "has-session", "-t", "home").status).toBe(0);
  });
});
