// Live: the completion scripts in the real shells (Debian 12: bash 5.2, zsh 5.9, fish 3.6; scripts/test-setup.sh
// installs them). bash: the function the script registers, called as bash calls it (COMP_WORDS, COMP_CWORD); fish:
// `complete -C`, which asks exactly what Tab asks; zsh: an interactive zsh in a tmux pane, with Tab pressed.
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shortId } from "../../src/core/identity.ts";
import { INSTALLABLE_IDS } from "../../src/harnesses/registry.ts";
import { cliCommandIn, startFakeHarness, type FakeHarness } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let agent: FakeHarness | undefined;
let sessionShortId = "";
beforeEach(async () => {
  sandbox = makeSandbox();
  env = { ...sandbox.env, PATH: `${cliCommandIn(join(sandbox.root, "npm-bin"))}:/usr/bin:/bin`, TONGS_AGENTS_SERVER: "off" };
  // One live session, reported through the real hook by a process named claude.
  agent = await startFakeHarness("claude", sandbox);
  await agent.emit("session-start", "claude", { session_id: "completion-1", cwd: "/src/api" });
  const listed = JSON.parse(execFileSync("tongs-agents", ["list", "--json"], { env, encoding: "utf8" })) as { sessions: { id: string }[] };
  sessionShortId = shortId(listed.sessions[0]?.id as string);
});
afterEach(async () => {
  await agent?.stop();
  sandbox.cleanup();
});

const AGENTS = [...INSTALLABLE_IDS, "all"].sort();

/** Lines a shell printed, sorted. */
const lines = (text: string) =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .sort();

describe("bash", () => {
  const complete = (words: readonly string[], index = words.length - 1): string[] => {
    const script = `eval "$(tongs-agents completion bash)"; COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")}); COMP_CWORD=${index}; _tongs_agents_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync("bash", ["--norc", "--noprofile", "-c", script], { env, encoding: "utf8" });
    expect(result.stderr).toBe("");
    return lines(result.stdout);
  };
  it("completes verbs, options, their values, subcommands, harness names and live session ids", () => {
    expect(
      spawnSync("bash", ["--norc", "-c", 'eval "$(tongs-agents completion bash)"; complete -p tongs-agents'], { env, encoding: "utf8" })
        .stdout,
    ).toContain("-F _tongs_agents_complete tongs-agents");
    expect(complete(["tongs-agents", "li"])).toEqual(["list"]);
    expect(complete(["tongs-agents", "s"])).toEqual(["serve", "show", "status"]);
    expect(complete(["tongs-agents", "list", "--"])).toEqual(["--all", "--color", "--help", "--json", "--local", "--watch"]);
    expect(complete(["tongs-agents", "install", "--agent", ""])).toEqual(AGENTS);
    expect(complete(["tongs-agents", "status", "--format", ""])).toEqual(["json", "plain", "tmux"]);
    expect(complete(["tongs-agents", "list", "--color", "=", "a"])).toEqual(["always", "auto"]); // bash splits at =
    expect(complete(["tongs-agents", "notify", ""])).toEqual(["changes", "mute", "unmute", "webhook"]);
    expect(complete(["tongs-agents", "notify", "webhook", ""])).toEqual(["add", "remove"]);
    expect(complete(["tongs-agents", "show", ""])).toEqual([sessionShortId]);
    expect(complete(["tongs-agents", "focus", "--json", sessionShortId.slice(0, 3)])).toEqual([sessionShortId]);
    expect(complete(["tongs-agents", "help", "tm"])).toEqual(["tmux-setup"]);
  });
});

describe("fish", () => {
  const complete = (line: string): string[] => {
    const script = `tongs-agents completion fish | source; complete -C ${JSON.stringify(line)}`;
    const result = spawnSync("fish", ["--no-config", "-c", script], { env, encoding: "utf8" });
    expect(result.stderr).toBe("");
    return lines(result.stdout);
  };
  it("completes the same words", () => {
    expect(complete("tongs-agents li")).toEqual(["list"]);
    expect(complete("tongs-agents list --w")).toEqual(["--watch"]);
    expect(complete("tongs-agents doctor --agent ")).toEqual(AGENTS);
    expect(complete("tongs-agents wait x --until ")).toEqual(["attention", "ended", "error", "idle", "waiting"]);
    expect(complete("tongs-agents explain ")).toEqual([sessionShortId]);
    expect(complete("tongs-agents completion ")).toEqual(["bash", "fish", "zsh"]);
  });
});

describe("zsh", () => {
  let lab: TmuxLab;
  beforeEach(() => (lab = new TmuxLab(sandbox, "zsh")));
  afterEach(() => lab.stop());

  it("Tab completes a verb, an option's value and a session id on the command line", async () => {
    const pane = lab.paneIn("zsh", `env PATH='${env.PATH}' TONGS_AGENTS_SERVER=off zsh -f`, 120);
    const line = () => lab.capture(lab.inner, pane).trimEnd().split("\n").at(-1) ?? "";
    const type = (text: string) => lab.tmux(lab.inner, "send-keys", "-t", pane, "-l", text);
    type(`autoload -Uz compinit && compinit -u && eval "$(tongs-agents completion zsh)" && echo READY\n`);
    await waitFor(() => lab.capture(lab.inner, pane).includes("\nREADY"), "zsh to load the completion");
    for (const [typed, shown] of [
      ["tongs-agents tmux-se", "tongs-agents tmux-setup "],
      ["tongs-agents install --agent qw", "tongs-agents install --agent qwen "],
      ["tongs-agents show ", `tongs-agents show ${sessionShortId} `],
    ] as const) {
      lab.tmux(lab.inner, "send-keys", "-t", pane, "C-u");
      type(typed);
      lab.tmux(lab.inner, "send-keys", "-t", pane, "Tab");
      await waitFor(() => line().endsWith(shown.trimEnd()), `Tab after ${JSON.stringify(typed)}`, 10_000);
    }
  });
});
