// Live, in real tmux 3.3 panes: `list --watch` redraws in place when an agent's state changes (an event through the hook
// shim and the drainer), quits on q and on Ctrl-C and gives the terminal back (no alternate screen, cursor shown,
// canonical mode); `list` on a terminal is coloured, and with NO_COLOR or --color=never carries no SGR sequence.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shellCommand } from "../../src/core/shell-quote.ts";
import { CLI_BIN } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "watch");
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

/** A window running `tongs-agents <args>` and then a line saying how it exited and the terminal's mode. */
function cliWindow(session: string, args: readonly string[], env: Record<string, string> = {}): string {
  const cli = shellCommand(["env", ...Object.entries(env).map(([name, value]) => `${name}=${value}`), process.execPath, CLI_BIN, ...args]);
  const after = `echo "EXIT $?"; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon; exec sleep 600`;
  return lab.tmux(lab.inner, "new-window", "-d", "-t", `${session}:`, "-P", "-F", "#{pane_id}", `${cli}; ${after}`);
}

const screen = (pane: string) => lab.capture(lab.inner, pane);
const flags = (pane: string) => lab.tmux(lab.inner, "display-message", "-p", "-t", pane, "#{alternate_on} #{cursor_flag}");

describe("list --watch", () => {
  it("redraws in place when a session changes, and q gives the terminal back", async () => {
    const agent = lab.drivenAgent("agents");
    lab.send(agent, "session-start");
    await waitFor(() => screen(agent).includes("sent session-start exit 0"), "the agent's first event");
    const watch = cliWindow("agents", ["list", "--watch"]);
    await waitFor(() => /started/.test(screen(watch)), "the watched list to show the session", 20_000);
    expect(screen(watch)).toMatch(/^tongs-agents list --watch \(this machine\): q or Ctrl-C quits/);
    expect(flags(watch)).toBe("1 0"); // the alternate screen, no cursor

    for (const [alias, state] of [
      ["permission-request", "waiting"],
      ["tool-done", "running"],
    ] as const) {
      const started = performance.now();
      lab.send(agent, alias);
      await waitFor(() => new RegExp(`\\b${state}\\b`).test(screen(watch)), `the list to show ${state}`, 10_000);
      // Well inside the 5 s recheck: the redraw came from the change itself.
      expect(performance.now() - started).toBeLessThan(2000);
      expect(
        screen(watch)
          .split("\n")
          .filter((line) => line.includes("claude")),
      ).toHaveLength(1); // in place, one row
    }

    lab.tmux(lab.inner, "send-keys", "-t", watch, "q");
    await waitFor(() => /^EXIT 0\n-?icanon$/m.test(screen(watch)), "list --watch to exit on q, and stty after it");
    expect(screen(watch)).toMatch(/^icanon$/m); // canonical mode again: raw mode was undone
    expect(flags(watch)).toBe("0 1");
  });

  it("Ctrl-C quits too and restores the terminal; without a terminal it says it needs one", async () => {
    lab.tmux(lab.inner, "new-session", "-d", "-s", "plain", "sleep 600");
    const watch = cliWindow("plain", ["list", "--watch"]);
    await waitFor(() => screen(watch).includes("q or Ctrl-C quits"), "the watched list");
    lab.tmux(lab.inner, "send-keys", "-t", watch, "C-c");
    await waitFor(() => /^EXIT 0\n-?icanon$/m.test(screen(watch)), "list --watch to exit on Ctrl-C, and stty after it");
    expect(screen(watch)).toMatch(/^icanon$/m);
    expect(flags(watch)).toBe("0 1");

    const piped = lab.tmux(
      lab.inner,
      "new-window",
      "-d",
      "-t",
      "plain:",
      "-P",
      "-F",
      "#{pane_id}",
      `${shellCommand([process.execPath, CLI_BIN, "list", "--watch"])} </dev/null 2>&1 | cat; exec sleep 600`,
    );
    await waitFor(() => screen(piped).includes("needs a terminal"), "the refusal");
  });
});

describe("colour", () => {
  // eslint-disable-next-line no-control-regex
  const SGR = /\u001b\[[0-9;]*m/;
  it("list on a terminal is coloured; NO_COLOR and --color=never print no SGR sequence", async () => {
    const agent = lab.drivenAgent("agents");
    lab.send(agent, "session-start", "prompt-submit");
    await waitFor(() => screen(agent).includes("sent prompt-submit exit 0"), "the agent's events");
    const styled = (pane: string) => lab.tmux(lab.inner, "capture-pane", "-e", "-p", "-t", pane);
    const coloured = cliWindow("agents", ["list"], { TONGS_AGENTS_SERVER: "off" });
    const plain = cliWindow("agents", ["list"], { NO_COLOR: "1", TONGS_AGENTS_SERVER: "off" });
    const never = cliWindow("agents", ["--color=never", "list"], { TONGS_AGENTS_SERVER: "off" });
    for (const pane of [coloured, plain, never]) await waitFor(() => screen(pane).includes("EXIT 0"), "list to finish");
    expect(styled(coloured)).toMatch(SGR);
    expect(styled(coloured)).toMatch(/running/);
    for (const pane of [plain, never]) {
      expect(styled(pane)).toMatch(/running/);
      expect(styled(pane)).not.toMatch(SGR);
    }
  });
});
