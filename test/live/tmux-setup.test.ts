// Live: the block tmux-setup writes, sourced by a real tmux server: the keys open the picker popup and go next, the
// status segment appears once however often the file is sourced, the keypress server starts (and goes with the block),
// and paths with spaces, quotes and $ survive.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blockBody, withBlock } from "../../backends/tmux/setup.ts";
import { keypressServerStatus, runCliProcess } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor, type AttachedClient } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "setup");
});
afterEach(async () => {
  // The block starts the keypress server; whatever a test left running is stopped through its socket.
  await runCliProcess(["serve", "--stop"], sandbox.env);
  lab.stop();
  sandbox.cleanup();
});

const served = () => keypressServerStatus(sandbox.env).served;
const servedShell = () => keypressServerStatus(sandbox.env).served_shell;

describe("tmux-setup, live", () => {
  it("--write twice leaves one block; the server sources it; keys and status work", async () => {
    const conf = join(sandbox.home, ".tmux.conf");
    writeFileSync(conf, "set -g mouse on\n");
    for (let run = 0; run < 2; run++) expect((await runCliProcess(["tmux-setup", "--write"], sandbox.env)).code).toBe(0);
    const text = readFileSync(conf, "utf8");
    expect(text.match(/# >>> tongs-agents >>>/g)).toHaveLength(1);

    const home = lab.newSession("home");
    const target = lab.newSession("elsewhere", { events: ["session-start", "prompt-submit", "permission-request"] });
    await lab.ready(home, target);
    for (let source = 0; source < 2; source++) lab.tmux(lab.inner, "source-file", conf);
    expect(lab.tmux(lab.inner, "show-options", "-gv", "status-right").match(/tongs_agents_status/g)).toHaveLength(1);
    const client = await lab.attach("home");
    // Sourcing started the keypress server (once: the second source found it running).
    await waitFor(() => existsSync(join(sandbox.stateDir, "server", "socket")), "the keypress server to start");
    const before = served();
    expect(before).toBeTypeOf("number");
    const shellBefore = servedShell() ?? 0;

    // The status segment, rendered by tmux itself on the client's status line.
    await waitFor(() => lab.seen(client).text.includes("●1"), "the status line to show one waiting session");

    // prefix + N: next goes to the waiting session.
    lab.tmux(lab.outer, "send-keys", "-t", client.outerSession, "C-b", "N");
    await waitFor(
      () => lab.clients().find((attached) => attached.tty === client.tty)?.pane === target.pane,
      "next to land on the waiting session",
    );

    // prefix + a: the picker in a popup; Enter on the first row (the waiting session) from the other session.
    lab.tmux(lab.inner, "switch-client", "-c", client.tty, "-t", home.pane);
    lab.tmux(lab.outer, "send-keys", "-t", client.outerSession, "C-b", "a");
    await waitFor(() => lab.seen(client).text.includes("tongs-agents  2 sessions"), "the picker popup");
    lab.tmux(lab.outer, "send-keys", "-t", client.outerSession, "Enter");
    await waitFor(
      () => lab.clients().find((attached) => attached.tty === client.tty)?.pane === target.pane,
      "Enter to land on the waiting session",
    );

    // The status line and the next key went through the server, by the shell client (bin/tongs-agents-key.sh).
    expect(served()).toBeGreaterThanOrEqual((before ?? 0) + 2);
    expect(servedShell()).toBeGreaterThanOrEqual(Math.max(shellBefore + 1, 2));

    const removed = await runCliProcess(["tmux-setup", "--remove"], sandbox.env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/Stopped the keypress server \(pid \d+\)/);
    expect(readFileSync(conf, "utf8")).toBe("set -g mouse on\n");
    expect(served()).toBeUndefined();
  });

  // A stock tmux: the default status-right (a 21-character pane title, the clock and the date) all but fills the
  // default status-right-length of 40, so a segment appended after it was cut off. The server reads only the block
  // (-f), the pane title is a long host name, and the status line is read from what an attached client draws.
  it("the status segment shows on a stock tmux, and the stock status-right stays whole", async () => {
    const conf = join(sandbox.root, "only-the-block.conf");
    expect((await runCliProcess(["tmux-setup", "--write", "--file", conf], sandbox.env)).code).toBe(0);
    const client = await waitingClient(conf);
    await waitFor(() => statusLine(client).includes("●1"), "the segment on the status line");
    const line = statusLine(client);
    expect(line).toMatch(/●1 "build-server-07\.examp" \d\d:\d\d \d\d-[A-Z][a-z]{2}-\d\d$/);
    expect(lab.tmux(lab.inner, "show-options", "-gv", "status-right-length")).toBe("60");
  });

  it("the status segment shows beside a themed status-right that fills its own length, which stays whole", async () => {
    const conf = join(sandbox.root, "themed.conf");
    // A theme's right side: styled blocks, a command, the time, exactly as long as its status-right-length.
    const theme = "#[fg=colour233,bg=colour241,bold] #(echo up-3-days) #[fg=colour233,bg=colour245,bold] %H:%M:%S #[default] theme-end";
    writeFileSync(conf, `set -g status-right-length 39\nset -g status-right '${theme}'\n`);
    expect((await runCliProcess(["tmux-setup", "--write", "--file", conf], sandbox.env)).code).toBe(0);
    const client = await waitingClient(conf);
    await waitFor(() => statusLine(client).includes("●1"), "the segment on the status line");
    expect(statusLine(client)).toMatch(/●1 {2}up-3-days {2}\d\d:\d\d:\d\d {2}theme-end$/);
    for (let source = 0; source < 2; source++) lab.tmux(lab.inner, "source-file", conf);
    expect(lab.tmux(lab.inner, "show-options", "-gv", "status-right")).toBe(`#{E:@tongs_agents_status} ${theme}`);
    expect(lab.tmux(lab.inner, "show-options", "-gv", "status-right-length")).toBe("59");
    expect((await runCliProcess(["tmux-setup", "--remove", "--file", conf], sandbox.env)).code).toBe(0);
    expect(readFileSync(conf, "utf8")).toBe(`set -g status-right-length 39\nset -g status-right '${theme}'\n`);
  });

  it("quotes install paths with spaces, quotes and $ so tmux and sh both read them back", () => {
    const odd = join(sandbox.root, `it's a "$HOME" dir`);
    mkdirSync(odd);
    const conf = join(sandbox.root, "odd.conf");
    writeFileSync(
      conf,
      withBlock(
        undefined,
        blockBody({
          node: join(odd, "node"),
          cli: join(odd, "tongs-agents.js"),
          pickerKey: "a",
          nextKey: "N",
          status: true,
          server: true,
          tmuxVersion: [3, 3],
        }),
      ),
    );
    lab.tmux(lab.inner, "new-session", "-d", "-s", "q", "sleep 600");
    lab.tmux(lab.inner, "source-file", conf);
    const bound = lab.tmux(lab.inner, "list-keys", "-T", "prefix", "a");
    // tmux shows the run-shell argument as it will hand it to sh: ask sh to split it and compare the words.
    const command = /run-shell -b (.*)$/.exec(bound)?.[1] ?? "";
    expect(command).toContain("popup");
    const words = execFileSync("/bin/sh", ["-c", `set -- ${tmuxUnquote(command)}; printf '%s\\n' "$1" "$2"`], { encoding: "utf8" })
      .trimEnd()
      .split("\n");
    expect(words).toEqual([join(odd, "node"), join(odd, "tongs-agents.js")]);
    // The next key goes through the shell client, beside tongs-agents.js, with the node it hands verbs to.
    const next = /run-shell -b (.*)$/.exec(lab.tmux(lab.inner, "list-keys", "-T", "prefix", "N"))?.[1] ?? "";
    const nextWords = execFileSync("/bin/sh", ["-c", `set -- ${tmuxUnquote(next)}; printf '%s\n' "$1" "$2" "$3" "$4"`], {
      encoding: "utf8",
    });
    expect(nextWords).toBe(`/bin/sh\n${join(odd, "tongs-agents-key.sh")}\n${join(odd, "node")}\nnext\n`);
  });
});

/** A tmux server that reads only `conf`, an agent waiting for permission, and a client attached to its session. */
async function waitingClient(conf: string): Promise<AttachedClient> {
  lab.tmux(lab.inner, "-f", conf, "new-session", "-d", "-s", "boot", "sleep 600");
  const agent = lab.newSession("home", { events: ["session-start", "prompt-submit", "permission-request"] });
  await lab.ready(agent);
  // The pane title is the host name by default; a long one fills the stock status-right's 21 characters.
  lab.tmux(lab.inner, "select-pane", "-t", agent.pane, "-T", "build-server-07.example.internal");
  return lab.attach("home");
}

/** The client's status line (its last line), as drawn. */
function statusLine(client: AttachedClient): string {
  return lab.seen(client).text.trimEnd().split("\n").at(-1)?.trimEnd() ?? "";
}

/** list-keys prints the argument tmux-quoted; undo that quoting (single or double quotes). */
function tmuxUnquote(text: string): string {
  if (text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1);
  if (text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1).replace(/\\(.)/g, "$1");
  return text;
}
