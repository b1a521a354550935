// Live: tongs-agents.tmux, the plugin file the tmux plugin manager runs (`set -g @plugin ...` in tmux.conf makes TPM run
// every `*.tmux` file at the plugin's root, as `run-shell` does here), against a real tmux 3.3 server: with
// `tongs-agents` on tmux's PATH it binds the picker and next keys and places the status segment as its options say;
// without it, it binds nothing and says so, in a message and where the segment would be.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tmuxQuote } from "../../backends/tmux/setup.ts";
import { shellCommand } from "../../src/core/shell-quote.ts";
import { socketPathOf } from "../../src/server/protocol.ts";
import { cliCommandIn, ROOT, runCliProcess } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";

const PLUGIN = join(ROOT, "tongs-agents.tmux");

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "plugin");
});
afterEach(async () => {
  await runCliProcess(["serve", "--stop"], sandbox.env);
  lab.stop();
  sandbox.cleanup();
});

const installedOnPath = () => cliCommandIn(join(sandbox.root, "npm-bin"));

/** Start the inner server on a tmux.conf with these options and the plugin, with this PATH (as TPM would run it). */
function startWith(options: Record<string, string>, path: string): void {
  const conf = join(sandbox.root, "tmux.conf");
  const lines = Object.entries(options).map(([name, value]) => `set -g ${name} '${value}'`);
  // tmux's parser takes one layer of quotes, the shell run-shell starts the next: a checkout path may hold a space.
  writeFileSync(conf, [...lines, `run-shell ${tmuxQuote(shellCommand([PLUGIN]))}`, ""].join("\n"));
  execFileSync("tmux", ["-S", lab.inner, "-f", conf, "new-session", "-d", "-s", "main", "-x", "120", "-y", "30", "sleep 600"], {
    env: { ...sandbox.env, PATH: path },
  });
}

const option = (name: string) => lab.tmux(lab.inner, "show-options", "-gv", name);
const key = (name: string) => lab.tryTmux(lab.inner, "list-keys", "-T", "prefix", name).stdout;

describe("the tmux plugin (tongs-agents.tmux), as TPM runs it", () => {
  it("binds the keys its options name, puts the segment first in status-right and starts the server by default", async () => {
    startWith({ "@tongs-agents-picker-key": "p", "@tongs-agents-next-key": "M-n" }, `${installedOnPath()}:/usr/bin:/bin`);
    // The block starts the keypress server in the background (run-shell -b): up before the test ends, so that
    // afterEach's `serve --stop` finds it.
    await waitFor(() => existsSync(socketPathOf(sandbox.stateDir)), "the keypress server the block starts");
    expect(key("p")).toContain("popup --client");
    expect(key("M-n")).toContain("next --client");
    expect(option("status-right")).toMatch(/^#\{E:@tongs_agents_status\} /);
    expect(option("@tongs_agents_status")).toContain("status --format tmux");
    expect(option("status-left")).not.toContain("tongs_agents");
  });

  it("@tongs-agents-status left puts it at the end of status-left; off leaves both alone; the defaults are a and N", () => {
    startWith({ "@tongs-agents-status": "left", "@tongs-agents-server": "off" }, `${installedOnPath()}:/usr/bin:/bin`);
    expect(key("a")).toContain("popup --client");
    expect(key("N")).toContain("next --client");
    // Quoted (`show-options -g`), so the trailing space the segment keeps before the window list shows.
    expect(lab.tmux(lab.inner, "show-options", "-g", "status-left")).toMatch(/#\{E:@tongs_agents_status\} "$/);
    expect(option("status-right")).not.toContain("tongs_agents");
    // A server of its own: one started on the same socket can lose it to the old one's exit, which unlinks it.
    lab.stop();
    lab = new TmuxLab(sandbox, "plugin-off");
    startWith({ "@tongs-agents-status": "off", "@tongs-agents-server": "off" }, `${installedOnPath()}:/usr/bin:/bin`);
    expect(`${option("status-left")} ${option("status-right")}`).not.toContain("tongs_agents");
    expect(key("a")).toContain("popup --client");
  });

  it("without tongs-agents on PATH: no keys, a message on the attached client, and the segment's place says so", async () => {
    startWith({}, "/usr/bin:/bin");
    expect(key("a")).toBe("");
    expect(option("status-right")).toMatch(/^#\[fg=red\]tongs-agents not on PATH#\[default\] /);
    const client = await lab.attach("main");
    await waitFor(() => lab.seen(client).text.includes("tongs-agents not on PATH"), "the red segment on the status line");
    // Read again with a client attached (tmux source-file, as after editing tmux.conf): the message shows on it.
    execFileSync("tmux", ["-S", lab.inner, "source-file", join(sandbox.root, "tmux.conf")], {
      env: { ...sandbox.env, PATH: "/usr/bin:/bin" },
    });
    await waitFor(() => lab.seen(client).text.includes("tongs-agents: not on PATH (npm install -g tongs-agents)"), "the message");
  });
});
