// Refusals say what is wrong: each config and argument rejection of the built CLI names the key, the value found
// (made safe, cut to a bound) and what is allowed; and the installer on a dotfile manager's dangling symlink writes
// through it or says what to do, and never advises a retry that cannot succeed nor claims what did not happen.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliProcess } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { printFigures } from "./support.ts";

const OSC52 = "\x1b]52;c;ZXZpbA==\x07";
const SHOWN_OSC52 = '"\\u001b]52;c;ZXZpbA==\\u0007"';

let sandbox: Sandbox;
let counter = 0;
const checked: string[] = [];
beforeAll(() => {
  sandbox = makeSandbox("tongs-adv-refusals-");
});
afterAll(() => {
  printFigures("refusals", { "rejections checked for their words": checked.length, "installer cases": installerCases });
  sandbox.cleanup();
});

/** An environment whose config dir holds `files` (config.json, profiles.json). */
function withConfig(files: Record<string, unknown>): NodeJS.ProcessEnv {
  const dir = join(sandbox.root, `config-${counter++}`);
  mkdirSync(join(dir, "tongs-agents"), { recursive: true });
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, "tongs-agents", name), typeof content === "string" ? content : JSON.stringify(content));
  return { ...sandbox.env, XDG_CONFIG_HOME: dir, TONGS_AGENTS_SERVER: "off" };
}

interface Refusal {
  readonly what: string;
  readonly files?: Record<string, unknown>;
  readonly args: readonly string[];
  readonly code: number;
  /** The words the output must hold: where, the value, what is allowed. */
  readonly says: readonly string[];
}

const agents = (...entries: unknown[]) => ({ "config.json": { agents: entries } });
const REFUSALS: readonly Refusal[] = [
  // Declared agents (the three said only "Invalid input").
  {
    what: "a declared agent's process name that is not a string",
    files: agents({ id: "evil7", process_names: [7] }),
    args: ["doctor"],
    code: 1,
    says: ["agents[0] (evil7): process_names[0]: 7 is a number, not a string; entry ignored"],
  },
  {
    what: "a declared agent that is not an object",
    files: agents("evil"),
    args: ["doctor"],
    code: 1,
    says: ['agents[0]: "evil" is a string, not an object; entry ignored'],
  },
  {
    what: "a declared agent's event mapped to no state",
    files: agents({ id: "evil", process_names: ["evil"], events: { x: "busy" } }),
    args: ["doctor"],
    code: 1,
    says: ['agents[0] (evil): events.x: "busy" is not one of started, running, waiting, idle, error, ended; entry ignored'],
  },
  {
    what: "a declared agent's event name",
    files: agents({ id: "evil", process_names: ["evil"], events: { [`X${OSC52}`]: "idle" } }),
    args: ["doctor"],
    code: 1,
    says: ['events: key "X\\u001b]52;c;ZXZpbA==\\u0007": not an event name (a-z, 0-9, -; starting with a letter)'],
  },
  {
    what: "a declared agent's hostile process name",
    files: agents({ id: "evil", process_names: [OSC52] }),
    args: ["doctor"],
    code: 1,
    says: [`process_names[0]: ${SHOWN_OSC52}: not a plain process name (no /, no whitespace or control characters)`],
  },
  {
    what: "a declared agent's unknown key",
    files: agents({ id: "evil", process_names: ["evil"], argv: "x" }),
    args: ["doctor"],
    code: 1,
    says: ['agents[0] (evil): unknown key "argv" (allowed: id, process_names, events)'],
  },
  {
    what: "a declared agent without process names",
    files: agents({ id: "evil" }),
    args: ["doctor"],
    code: 1,
    says: ["agents[0] (evil): process_names: missing (a list is required)"],
  },
  // Notification settings.
  {
    what: "a notification channel that does not exist",
    files: { "config.json": { notifications: { states: { waiting: ["desktop", "pager"] } } } },
    args: ["notify"],
    code: 0,
    says: ['notifications.states.waiting[1]: "pager" is not one of desktop, terminal, tmux, webhook, bell; using the defaults'],
  },
  {
    what: "a notification setting of the wrong kind",
    files: { "config.json": { notifications: { states: { idle: "yes" } } } },
    args: ["notify"],
    code: 0,
    says: ['notifications.states.idle: "yes" is a string, not true or false, or a list'],
  },
  {
    what: "a click wait out of range",
    files: { "config.json": { notifications: { click_wait_seconds: -5 } } },
    args: ["notify"],
    code: 0,
    says: ["notifications.click_wait_seconds: -5 is too small; it must be at least 0"],
  },
  {
    what: "an unknown top-level key",
    files: { "config.json": { notification: {} } },
    args: ["notify"],
    code: 0,
    says: ['unknown key "notification" (allowed: notifications, agents, hosts); using the defaults'],
  },
  {
    what: "an unknown notification key",
    files: { "config.json": { notifications: { quite: true } } },
    args: ["notify"],
    code: 0,
    says: ['notifications: unknown key "quite" (allowed: quiet, states, channels, click_wait_seconds, quota_percent, hosts_poll_seconds)'],
  },
  // SSH hosts.
  {
    what: "a host's hostile destination",
    files: { "config.json": { hosts: { box: { destination: `box${OSC52}` } } } },
    args: ["hosts", "list"],
    code: 1,
    says: ['hosts: box.destination: "box\\u001b]52;c;ZXZpbA==\\u0007": not an ssh destination (letters, digits and _ . @ : / [ ] -'],
  },
  {
    what: "a host name",
    files: { "config.json": { hosts: { "My Box": { destination: "box" } } } },
    args: ["hosts", "list"],
    code: 1,
    says: ['hosts: key "My Box": host names are [a-z0-9][a-z0-9_-]{0,31}'],
  },
  {
    what: "a host's bound",
    files: { "config.json": { hosts: { box: { destination: "box", timeout_s: 99 } } } },
    args: ["list"],
    code: 0,
    says: ["hosts: box.timeout_s: 99: not a number of seconds from 0.5 to 30"],
  },
  {
    what: "a host's unknown key",
    files: { "config.json": { hosts: { box: { destination: "box", port: 22 } } } },
    args: ["hosts", "list"],
    code: 1,
    says: ['hosts: box: unknown key "port" (allowed: destination, command, timeout_s)'],
  },
  {
    what: "a host added to a file whose other hosts are rejected",
    files: { "config.json": { hosts: { "Bad Name": { destination: "box" } } } },
    args: ["hosts", "add", "box"],
    code: 1,
    says: ["added: box in", "no host is used until this is fixed: ", 'hosts: key "Bad Name": host names are'],
  },
  // Launch profiles.
  {
    what: "a profile's value of the wrong kind",
    files: { "profiles.json": { profiles: { review: { command: "claude", cwd: 7 } } } },
    args: ["launch", "--profile", "review", "--here", "--", "true"],
    code: 1,
    says: ["profiles.review.cwd: 7 is a number, not a string"],
  },
  {
    what: "a profile's unknown key",
    files: { "profiles.json": { profiles: { review: { command: "claude", argv: [] } } } },
    args: ["launch", "--profile", "review", "--here", "--", "true"],
    code: 1,
    says: ['profiles.review: unknown key "argv" (allowed: command, args, cwd, env)'],
  },
  // Arguments.
  { what: "an unknown verb", args: [OSC52], code: 2, says: [`unknown command ${SHOWN_OSC52}`] },
  {
    what: "an unknown option",
    args: ["list", "--frobnicate"],
    code: 2,
    says: ['unknown option "--frobnicate" (this command takes --json, --all, --local, --watch)'],
  },
  { what: "a mistyped option", args: ["list", "--colour"], code: 2, says: ['unknown option "--colour"; did you mean --color?'] },
  {
    what: "an argument to a command that takes none",
    args: ["list", "extra"],
    code: 2,
    says: ["Unexpected argument 'extra'. This command does not take positional arguments"],
  },
  { what: "one argument too many", args: ["show", "a", "b"], code: 2, says: ['expected 1 argument(s), got "a", "b"'] },
  {
    what: "status --format",
    args: ["status", "--format", OSC52],
    code: 2,
    says: [`--format takes tmux, plain or json, not ${SHOWN_OSC52}`],
  },
  {
    what: "wait --until",
    args: ["wait", "x", "--until", "done"],
    code: 2,
    says: ['--until takes waiting, idle, error, ended, attention, not "done"'],
  },
  {
    what: "wait --timeout",
    args: ["wait", "x", "--timeout", "soon"],
    code: 2,
    says: ['--timeout takes a number of seconds (0 or more), not "soon"'],
  },
  {
    what: "popup --client",
    args: ["popup", "--client", "pts/3"],
    code: 2,
    says: [`--client takes the client's terminal, /dev/... (bind it with '#{client_tty}'), not "pts/3"`],
  },
  {
    what: "popup --width",
    args: ["popup", "--client", "/dev/pts/3", "--width", "wide"],
    code: 2,
    says: ['--width and --height take a number of cells or a percentage (80, 70%), not "wide"'],
  },
  {
    what: "hosts add, name",
    args: ["hosts", "add", "My Box"],
    code: 2,
    says: ['not a host name: "My Box" (use [a-z0-9][a-z0-9_-]{0,31})'],
  },
  {
    what: "hosts add, --timeout",
    args: ["hosts", "add", "box", "--timeout", "60"],
    code: 2,
    says: ["--timeout takes seconds from 0.5 to 30, not 60"],
  },
  {
    what: "install --agent",
    args: ["install", "--agent", "cursor"],
    code: 2,
    says: ['unknown agent "cursor" (claude, codex, pi, gemini, qwen, copilot, opencode, kimi, cline or all)'],
  },
  { what: "install --hook", args: ["install", "--hook", "async"], code: 2, says: ['--hook takes shim or sync, not "async"'] },
  {
    what: "tmux-setup --picker-key",
    args: ["tmux-setup", "--picker-key", "#(x)"],
    code: 2,
    says: ['not a key tongs-agents binds: "#(x)" (use e.g. a, N, C-a, M-p, F5)'],
  },
  {
    what: "serve, two modes",
    args: ["serve", "--stop", "--status"],
    code: 2,
    says: ["give one of --detach, --stop, --status, not --stop and --status"],
  },
  {
    what: "a long value is cut",
    args: ["status", "--format", "x".repeat(5000)],
    code: 2,
    says: [`--format takes tmux, plain or json, not "${"x".repeat(79)}…"`],
  },
];

describe("each rejection names the key, the value and what is allowed", () => {
  it.each(REFUSALS.map((refusal) => [refusal.what, refusal] as const))("%s", async (_what, refusal) => {
    const run = await runCliProcess(
      refusal.args,
      refusal.files ? withConfig(refusal.files) : { ...sandbox.env, TONGS_AGENTS_SERVER: "off" },
    );
    const output = run.stdout + run.stderr;
    checked.push(refusal.what);
    for (const words of refusal.says) expect(output).toContain(words);
    expect(output).not.toMatch(/Invalid input/);
    expect(run.code, output).toBe(refusal.code);
  });
});

let installerCases = 0;

/** A HOME whose ~/.claude is set up by `prepare`, and the CLI's install/uninstall of Claude Code run in it. */
function claudeHome(name: string) {
  const home = join(sandbox.root, `home-${name}`);
  const claude = join(home, ".claude");
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...sandbox.env,
    HOME: home,
    CLAUDE_CONFIG_DIR: claude,
    TONGS_AGENTS_STATE_DIR: join(home, "state"),
    TONGS_AGENTS_SERVER: "off",
  };
  const run = (...args: string[]) => runCliProcess([...args, "--agent", "claude"], env);
  installerCases++;
  return { home, claude, settings: join(claude, "settings.json"), run };
}

describe("the installer on a dotfile manager's dangling symlink", () => {
  it("settings.json a link to a file not there yet, in a directory that is: written through the link; uninstall leaves the link as it was", async () => {
    const { home, claude, settings, run } = claudeHome("dangling");
    const target = join(home, "dotfiles", "claude-settings.json");
    mkdirSync(join(home, "dotfiles"));
    mkdirSync(claude);
    symlinkSync(target, settings);

    const installed = await run("install");
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    expect(lstatSync(settings).isSymbolicLink()).toBe(true);
    expect(readlinkSync(settings)).toBe(target);
    expect(JSON.parse(readFileSync(target, "utf8")).hooks.SessionStart).toHaveLength(1);
    expect((await run("install")).stdout).toContain("already up to date");

    const removed = await run("uninstall");
    expect(removed.code, removed.stdout + removed.stderr).toBe(0);
    expect(readlinkSync(settings)).toBe(target);
    expect(existsSync(target)).toBe(false);
  });

  it("a link whose target's directory is missing: refused, saying what is wrong and what to do; the retry it advises then succeeds", async () => {
    const { home, claude, settings, run } = claudeHome("dangling-dir");
    const target = join(home, "dotfiles", "claude", "settings.json");
    mkdirSync(claude);
    symlinkSync(target, settings);

    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await run("install");
      const output = refused.stdout + refused.stderr;
      expect(refused.code).toBe(1);
      expect(output).toContain(`${settings} is a symbolic link to ${target}, which does not exist, nor does its directory`);
      expect(output).toContain("create that directory (or put your dotfiles in place), or remove the link, then run the command again");
      expect(output).not.toMatch(/was created since the plan was made|changed since the plan/);
      expect(output).not.toMatch(/to do: Restart/);
      expect(existsSync(join(home, "dotfiles"))).toBe(false);
    }
    mkdirSync(join(home, "dotfiles", "claude"), { recursive: true });
    const retried = await run("install");
    expect(retried.code, retried.stdout + retried.stderr).toBe(0);
    expect(JSON.parse(readFileSync(target, "utf8")).hooks.Stop).toHaveLength(1);
  });

  it("~/.claude itself a link to nothing: refused, naming the link and what to do", async () => {
    const { home, claude, run } = claudeHome("dangling-home");
    symlinkSync(join(home, "dotfiles", "claude"), claude);
    const refused = await run("install");
    const output = refused.stdout + refused.stderr;
    expect(refused.code).toBe(1);
    expect(output).toContain(`${claude} is a symbolic link to ${join(home, "dotfiles", "claude")}, which does not exist; nothing written`);
    expect(output).not.toMatch(/\(ENOENT\)|run the command again\)/);
  });

  it("an unwritable ~/.claude (a read-only file system): says so, and claims no hooks in place nor advises a restart (needs root, as CI)", async () => {
    expect(process.getuid?.(), "this test mounts a tmpfs: it needs root, as CI has").toBe(0);
    const { claude, run } = claudeHome("read-only");
    mkdirSync(claude);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", claude]);
    try {
      const failed = await run("install");
      const output = failed.stdout + failed.stderr;
      expect(failed.code).toBe(1);
      expect(output).toContain("read-only file system (EROFS)");
      expect(output).toContain("Not everything could be done");
      expect(output).not.toMatch(/in place|to do: Restart|run the command again/);
    } finally {
      execFileSync("umount", [claude]);
    }
  });
});
