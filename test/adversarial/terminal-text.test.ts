// Terminal text: every verb of the built CLI, run as a process, on every error path we can reach, fed escape sequences
// from every source of text it shows: agent records (this machine's and an SSH host's), SSH hosts' answers (stdout,
// stderr, exit codes 127 and 255, non-JSON, JSON rows), config files, paths and arguments. Each output (stdout and
// stderr, as bytes) must be valid UTF-8 holding no raw control character but newline and tab; where the hostile text is
// shown, it must be shown visibly (its JSON escapes); what tmux reads as a format must hold no format of the text's.
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionRecord } from "../../src/core/schema.ts";
import { CLI_BIN, ROOT } from "../processes.ts";
import { writeLiveRecord } from "../records.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { printFigures } from "./support.ts";

/** What an agent, a host or a config file can put in its text: each sequence a terminal or tmux would act on. */
const HOSTILE = {
  "OSC 52 (clipboard write)": "\x1b]52;c;ZXZpbA==\x07",
  "OSC 8 (hyperlink)": "\x1b]8;;http://evil.example\x1b\\here\x1b]8;;\x1b\\",
  "OSC 2 (title)": "\x1b]2;owned\x07",
  "CSI (clear, colour)": "\x1b[2J\x1b[31m",
  BEL: "\x07",
  "C1 CSI (0x9b)": "\x9b31m",
  "tmux #()": "#(touch /tmp/tongs-owned)#[fg=red]",
};
const EVIL = Object.values(HOSTILE).join("");
/** The same in a file name (no slash). */
const EVIL_NAME = EVIL.replaceAll("/", "|");

/** Raw characters a terminal would act on: C0 controls but newline and tab, DEL, C1 controls, bidirectional controls. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The hostile text as the writer shows it: its escapes, visible. */
const SHOWN = /\\u001b\]52;c;ZXZpbA|\\u009b31m|\\u001b\[2J|\\u0007/;

type Env = "records" | "hosts" | "config" | "not-json" | "install" | "install-broken" | "state-path" | "profiles";

interface Row {
  readonly name: string;
  readonly env: Env;
  readonly args: readonly string[];
  /** The hostile text reaches this output: it must be there, made visible (proves the row tested something). */
  readonly shows?: boolean;
  /** stdout is read by tmux as a format (the status segment). */
  readonly tmux?: boolean;
  /** Lines written to stdin, kept open until stdout matches `until`. */
  readonly input?: readonly string[];
  readonly until?: RegExp;
}

const MCP_INPUT = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_sessions", arguments: { include_ended: true } } },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_session", arguments: { query: "dup" } } },
].map((message) => JSON.stringify(message));

const ROWS: readonly Row[] = [
  // Agent records on this machine: two sessions a query "dup" matches (the ambiguity lists), one ended.
  { name: "list", env: "records", args: ["list"], shows: true },
  { name: "list --all", env: "records", args: ["list", "--all"], shows: true },
  { name: "list --json", env: "records", args: ["list", "--json"], shows: true },
  { name: "show", env: "records", args: ["show", "dup-a"], shows: true },
  { name: "show --json", env: "records", args: ["show", "dup-a", "--json"], shows: true },
  { name: "show, ambiguous", env: "records", args: ["show", "dup"], shows: true },
  { name: "show, ambiguous --json", env: "records", args: ["show", "dup", "--json"], shows: true },
  { name: "explain", env: "records", args: ["explain", "dup-a"], shows: true },
  { name: "explain --json", env: "records", args: ["explain", "dup-a", "--json"], shows: true },
  { name: "explain, ambiguous", env: "records", args: ["explain", "dup"], shows: true },
  { name: "focus (no terminal reachable)", env: "records", args: ["focus", "dup-a"], shows: true },
  { name: "focus --json", env: "records", args: ["focus", "dup-a", "--json"], shows: true },
  { name: "focus, ambiguous", env: "records", args: ["focus", "dup"], shows: true },
  { name: "focus, ambiguous --json", env: "records", args: ["focus", "dup", "--json"], shows: true },
  { name: "wait, ambiguous", env: "records", args: ["wait", "dup", "--timeout", "1"], shows: true },
  { name: "wait, timeout", env: "records", args: ["wait", "dup-a", "--until", "idle", "--timeout", "1"] },
  { name: "wait, timeout --json", env: "records", args: ["wait", "dup-b", "--until", "ended", "--timeout", "1", "--json"], shows: true },
  { name: "wait, already there", env: "records", args: ["wait", "dup-a", "--until", "waiting", "--timeout", "1"], shows: true },
  { name: "next", env: "records", args: ["next"], shows: true },
  { name: "next --json", env: "records", args: ["next", "--json"], shows: true },
  { name: "status", env: "records", args: ["status"] },
  { name: "status --format tmux", env: "records", args: ["status", "--format", "tmux"], tmux: true },
  { name: "status --format json", env: "records", args: ["status", "--format", "json"] },
  { name: "prune --dry-run", env: "records", args: ["prune", "--dry-run"] },
  { name: "prune --dry-run --json", env: "records", args: ["prune", "--dry-run", "--json"] },
  { name: "pick without a terminal", env: "records", args: ["pick"] },
  { name: "mcp: list_sessions, get_session", env: "records", args: ["mcp"], input: MCP_INPUT, until: /"id":3/, shows: true },
  { name: "notify", env: "records", args: ["notify"] },
  { name: "serve --status", env: "records", args: ["serve", "--status"] },

  // SSH hosts: one runs the real CLI on hostile records; the others answer with hostile bytes.
  { name: "list with hosts", env: "hosts", args: ["list"], shows: true },
  { name: "list --all with hosts", env: "hosts", args: ["list", "--all"], shows: true },
  { name: "list --json with hosts", env: "hosts", args: ["list", "--json"], shows: true },
  { name: "status with hosts", env: "hosts", args: ["status"] },
  { name: "status --format tmux with hosts", env: "hosts", args: ["status", "--format", "tmux"], tmux: true },
  { name: "status --format json with hosts", env: "hosts", args: ["status", "--format", "json"], shows: true },
  { name: "show HOST:query (real host)", env: "hosts", args: ["show", "real:remote-a"], shows: true },
  { name: "show HOST:query --json (real host)", env: "hosts", args: ["show", "real:remote-a", "--json"], shows: true },
  { name: "show, ambiguous on the host", env: "hosts", args: ["show", "real:remote"], shows: true },
  { name: "show on a host sending rows", env: "hosts", args: ["show", "rows:remote-a"] },
  { name: "show on a host exiting 255", env: "hosts", args: ["show", "down:x"], shows: true },
  { name: "show on a host exiting 127", env: "hosts", args: ["show", "nocmd:x"], shows: true },
  { name: "show on a host answering non-JSON", env: "hosts", args: ["show", "garbage:x"], shows: true },
  { name: "show on a host failing with JSON", env: "hosts", args: ["show", "failing:x"], shows: true },
  { name: "show, no match here: every host asked", env: "hosts", args: ["show", "nowhere"], shows: true },
  { name: "explain HOST:query (real host)", env: "hosts", args: ["explain", "real:remote-a"], shows: true },
  { name: "explain on a host exiting 255", env: "hosts", args: ["explain", "down:x"], shows: true },
  { name: "explain on a host answering non-JSON", env: "hosts", args: ["explain", "garbage:x"], shows: true },
  { name: "explain on a host failing with JSON", env: "hosts", args: ["explain", "failing:x", "--json"], shows: true },
  { name: "focus HOST:query (real host)", env: "hosts", args: ["focus", "real:remote-a"], shows: true },
  { name: "focus on a host exiting 255", env: "hosts", args: ["focus", "down:x"], shows: true },
  { name: "focus on a host exiting 127", env: "hosts", args: ["focus", "nocmd:x"], shows: true },
  { name: "focus on a host failing with JSON", env: "hosts", args: ["focus", "failing:x"], shows: true },
  { name: "wait HOST:query (real host)", env: "hosts", args: ["wait", "real:remote-a", "--until", "idle", "--timeout", "5"] },
  { name: "wait on a host sending rows", env: "hosts", args: ["wait", "rows:remote-a", "--until", "idle", "--timeout", "5"] },
  { name: "wait on a host exiting 255", env: "hosts", args: ["wait", "down:x", "--timeout", "2"], shows: true },
  { name: "wait on a host answering non-JSON", env: "hosts", args: ["wait", "garbage:x", "--timeout", "2", "--json"], shows: true },
  { name: "next with hosts", env: "hosts", args: ["next"], shows: true },
  { name: "hosts list", env: "hosts", args: ["hosts", "list"] },
  { name: "hosts list --json", env: "hosts", args: ["hosts", "list", "--json"] },
  { name: "mcp with hosts", env: "hosts", args: ["mcp"], input: MCP_INPUT, until: /"id":3/, shows: true },

  // Config files: config.json whose every section is wrong in hostile ways; one that is not JSON; launch profiles.
  { name: "doctor, declared agents rejected", env: "config", args: ["doctor"], shows: true },
  { name: "doctor --json", env: "config", args: ["doctor", "--json"], shows: true },
  { name: "notify, settings rejected", env: "config", args: ["notify"], shows: true },
  { name: "notify --json", env: "config", args: ["notify", "--json"], shows: true },
  { name: "list, hosts rejected", env: "config", args: ["list"], shows: true },
  { name: "status, hosts rejected", env: "config", args: ["status"] },
  { name: "hosts list, hosts rejected", env: "config", args: ["hosts", "list"], shows: true },
  { name: "hosts add, hosts rejected", env: "config", args: ["hosts", "add", "box", "box.example"], shows: true },
  { name: "show, hosts rejected", env: "config", args: ["show", "nowhere"] },
  { name: "doctor, config not JSON", env: "not-json", args: ["doctor"] },
  { name: "notify, config not JSON", env: "not-json", args: ["notify"] },
  { name: "list, config not JSON", env: "not-json", args: ["list"] },
  { name: "launch, profiles rejected", env: "profiles", args: ["launch", "--profile", "review", "--here", "--", "true"], shows: true },
  { name: "launch, profile missing", env: "profiles", args: ["launch", "--profile", "other", "--here", "--", "true"] },

  // The installer on files holding hostile text: a user's own hooks, and a file that is not JSON.
  { name: "install --dry-run, user hooks", env: "install", args: ["install", "--dry-run", "--agent", "claude"] },
  {
    name: "install --dry-run --verbose, user hooks",
    env: "install",
    args: ["install", "--dry-run", "--verbose", "--agent", "claude"],
    shows: true,
  },
  { name: "install --dry-run --json", env: "install", args: ["install", "--dry-run", "--agent", "claude", "--json"] },
  { name: "uninstall --dry-run", env: "install", args: ["uninstall", "--dry-run", "--agent", "claude"] },
  { name: "doctor --agent claude", env: "install", args: ["doctor", "--agent", "claude"] },
  { name: "install, settings not JSON", env: "install-broken", args: ["install", "--agent", "claude"] },
  { name: "doctor, settings not JSON", env: "install-broken", args: ["doctor", "--agent", "claude"] },

  // Paths: the state dir at a hostile path, and a symlink (refused, its path quoted).
  { name: "list, state dir a symlink", env: "state-path", args: ["list"], shows: true },
  { name: "status, state dir a symlink", env: "state-path", args: ["status"], shows: true },
  { name: "status --format json, state dir a symlink", env: "state-path", args: ["status", "--format", "json"], shows: true },
  { name: "show, state dir a symlink", env: "state-path", args: ["show", "x"], shows: true },
  { name: "wait, state dir a symlink", env: "state-path", args: ["wait", "x", "--timeout", "1"], shows: true },
  { name: "next, state dir a symlink", env: "state-path", args: ["next"], shows: true },
  { name: "prune, state dir a symlink", env: "state-path", args: ["prune"], shows: true },
  { name: "serve --detach, state dir a symlink", env: "state-path", args: ["serve", "--detach"], shows: true },

  // Arguments.
  { name: "unknown verb", env: "records", args: [EVIL], shows: true },
  { name: "help <unknown verb>", env: "records", args: ["help", EVIL], shows: true },
  { name: "unknown option", env: "records", args: ["list", `--${EVIL}`], shows: true },
  { name: "extra argument", env: "records", args: ["list", EVIL], shows: true },
  { name: "show <not found>", env: "records", args: ["show", EVIL], shows: true },
  { name: "explain <not found> --json", env: "records", args: ["explain", EVIL, "--json"], shows: true },
  { name: "focus <not found>", env: "records", args: ["focus", EVIL], shows: true },
  { name: "wait <not found>", env: "records", args: ["wait", EVIL, "--timeout", "1"], shows: true },
  { name: "status --format <bad>", env: "records", args: ["status", "--format", EVIL], shows: true },
  { name: "wait --until <bad>", env: "records", args: ["wait", "dup-a", "--until", EVIL], shows: true },
  { name: "wait --timeout <bad>", env: "records", args: ["wait", "dup-a", "--timeout", EVIL], shows: true },
  { name: "focus --ssh-from <bad>", env: "records", args: ["focus", "dup-a", "--ssh-from", EVIL], shows: true },
  { name: "next --client <bad>", env: "records", args: ["next", "--client", EVIL], shows: true },
  { name: "popup --client <bad>", env: "records", args: ["popup", "--client", EVIL], shows: true },
  { name: "popup --width <bad>", env: "records", args: ["popup", "--client", "/dev/pts/0", "--width", EVIL], shows: true },
  { name: "tmux-setup --picker-key <bad>", env: "records", args: ["tmux-setup", "--picker-key", EVIL], shows: true },
  { name: "tmux-setup --file <hostile path>", env: "records", args: ["tmux-setup", "--remove", "--file", EVIL_NAME], shows: true },
  { name: "launch --profile <bad>", env: "records", args: ["launch", "--profile", EVIL, "--", "true"], shows: true },
  { name: "launch outside tmux", env: "records", args: ["launch", "--window", "--", EVIL] },
  { name: "launch a missing program", env: "records", args: ["launch", "--here", "--", `/nonexistent/${EVIL_NAME}`], shows: true },
  { name: "hosts add <bad name>", env: "records", args: ["hosts", "add", EVIL, "box"], shows: true },
  { name: "hosts add <bad destination>", env: "records", args: ["hosts", "add", "box", EVIL], shows: true },
  { name: "hosts add --timeout <bad>", env: "records", args: ["hosts", "add", "box", "--timeout", EVIL], shows: true },
  { name: "hosts remove <unknown>", env: "records", args: ["hosts", "remove", EVIL], shows: true },
  { name: "hosts <bad action>", env: "records", args: ["hosts", EVIL], shows: true },
  { name: "install --agent <bad>", env: "records", args: ["install", "--agent", EVIL], shows: true },
  { name: "install --hook <bad>", env: "records", args: ["install", "--hook", EVIL], shows: true },
  { name: "uninstall --agent <bad> --json", env: "records", args: ["uninstall", "--agent", EVIL, "--json"], shows: true },
  { name: "doctor --agent <bad>", env: "records", args: ["doctor", "--agent", EVIL], shows: true },
  { name: "serve --<bad>", env: "records", args: ["serve", `--${EVIL}`], shows: true },
  { name: "demo --<bad>", env: "records", args: ["demo", `--${EVIL}`], shows: true },
  { name: "notify --<bad>", env: "records", args: ["notify", `--${EVIL}`], shows: true },
  { name: "mcp <bad>", env: "records", args: ["mcp", EVIL], shows: true },
  { name: "pick --client <bad>", env: "records", args: ["pick", "--client", EVIL] },
];

interface Run {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

/** The CLI as a process; bytes kept as they came. Killed at a generous bound so a hang fails instead of stalling. */
function runCli(row: Row, env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...row.args], { env, cwd });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      if (row.until?.test(Buffer.concat(stdout).toString("utf8"))) child.stdin.end();
    });
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on("error", () => undefined);
    if (row.input) child.stdin.write(row.input.map((line) => `${line}\n`).join(""));
    if (!row.until) child.stdin.end();
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) });
    });
  });
}

/** Each raw control character in `bytes`, with what surrounds it; "not UTF-8" when the bytes do not decode. */
function rawControls(bytes: Buffer): string[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return ["not UTF-8"];
  }
  return [...text.matchAll(RAW_CONTROL)].map(
    (match) =>
      `U+${match[0].charCodeAt(0).toString(16).padStart(4, "0")} in ${JSON.stringify(text.slice(Math.max(0, match.index - 20), match.index + 20))}`,
  );
}

/** Formats of the text's own in what tmux reads as a format: `#(` or a `#[` that is not one of our styles. */
function tmuxFormats(text: string): string[] {
  const unescaped = text.replaceAll("##", "");
  return [...unescaped.matchAll(/#\(|#\[(?![a-z]+(=[a-z]+)?(,[a-z]+(=[a-z]+)?)*\])|#\{/g)].map((match) =>
    unescaped.slice(match.index, match.index + 20),
  );
}

let sandbox: Sandbox;
const envs = {} as Record<Env, NodeJS.ProcessEnv>;
const outcomes: { row: string; code: number | null; raw: number; shown: boolean }[] = [];

/** A config dir of its own for an env: config.json (and profiles.json) with `files`. */
function configDir(name: string, files: Record<string, string>): string {
  const dir = join(sandbox.root, `config-${name}`);
  mkdirSync(join(dir, "tongs-agents"), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, "tongs-agents", file), text);
  return dir;
}

const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

/** A live record (this test process) whose every free text is hostile. */
async function hostileRecord(stateDir: string, sessionId: string, status: SessionRecord["status"]): Promise<void> {
  await writeLiveRecord(
    stateDir,
    `${sessionId}${EVIL}`,
    {
      env: { TMUX: `/tmp/tmux-${EVIL_NAME},1,0`, TMUX_PANE: `%1${EVIL}`, TERM_PROGRAM: EVIL },
      tty: `/dev/pts/${HOSTILE["OSC 52 (clipboard write)"]}`,
      unprovable: EVIL,
    },
    `/work/${sessionId}/${EVIL_NAME}`,
    {
      status,
      detail: EVIL,
      tool: EVIL,
      last_event: `claude.${EVIL}`,
      pending:
        status === "waiting"
          ? [{ kind: "permission", tool: EVIL, detail: EVIL, candidates: [], since: ago(30), event: `claude.${EVIL}` }]
          : undefined,
      history: [{ at: ago(30), source: "hook", event: `claude.${EVIL}`, status, change: EVIL }],
    },
  );
}

beforeAll(async () => {
  sandbox = makeSandbox("tongs-adv-text-");
  const base: NodeJS.ProcessEnv = { ...sandbox.env, TONGS_AGENTS_SERVER: "off", NO_COLOR: "1", COLUMNS: "160" };

  // This machine's records: two a query "dup" matches, one ended.
  await hostileRecord(sandbox.stateDir, "dup-a", "waiting");
  await hostileRecord(sandbox.stateDir, "dup-b", "running");
  await hostileRecord(sandbox.stateDir, "gone-c", "ended");
  envs.records = base;

  // SSH hosts, through a fake ssh first on PATH.
  const sshDir = join(sandbox.root, "ssh");
  const bin = join(sandbox.root, "bin");
  mkdirSync(join(sshDir, "real", "config"), { recursive: true });
  mkdirSync(bin, { recursive: true });
  copyFileSync(join(ROOT, "test", "adversarial", "fixtures", "fake-ssh.sh"), join(bin, "ssh"));
  chmodSync(join(bin, "ssh"), 0o755);
  await hostileRecord(join(sshDir, "real", "state"), "remote-a", "waiting");
  await hostileRecord(join(sshDir, "real", "state"), "remote-b", "running");
  const answer = (host: string, { out, err, code }: { out?: string; err?: string; code: number }) => {
    if (out !== undefined) writeFileSync(join(sshDir, `${host}.out`), out);
    if (err !== undefined) writeFileSync(join(sshDir, `${host}.err`), err);
    writeFileSync(join(sshDir, `${host}.code`), String(code));
  };
  answer("down", { err: `ssh: connect to host down: ${EVIL}\n`, code: 255 });
  answer("nocmd", { err: `sh: 1: tongs-agents${EVIL}: not found\n`, code: 127 });
  answer("garbage", { out: `${EVIL}\n`, err: `${EVIL}\n`, code: 0 });
  answer("failing", { out: JSON.stringify({ ok: false, reason: "not-found", detail: EVIL }), err: EVIL, code: 1 });
  // Rows as a hostile host would send them: valid JSON, every free text hostile, C1 controls raw in the strings.
  const row = {
    id: `fleet:v1:claude:${"c".repeat(64)}`,
    short_id: "ccccccc",
    harness: "claude",
    harness_name: EVIL,
    session_id: `remote-a${EVIL}`,
    instance_id: EVIL,
    identity: "process",
    status: "waiting",
    recorded_status: "waiting",
    stale: false,
    stale_reason: EVIL,
    pid: 4242,
    cwd: `/work/${EVIL}`,
    detail: EVIL,
    tool: EVIL,
    last_event: EVIL.slice(0, 100),
    created_at: ago(60),
    updated_at: ago(60),
    status_changed_at: ago(60),
    launch_id: EVIL.slice(0, 60),
    profile_id: EVIL.slice(0, 60),
    terminal: { env: { TMUX_PANE: EVIL }, tty: EVIL.slice(0, 60) },
  };
  answer("rows", { out: JSON.stringify({ sessions: [row], invalid: [{ digest: EVIL, reason: EVIL }] }), err: EVIL, code: 0 });
  const hosts = Object.fromEntries(
    ["real", "rows", "down", "nocmd", "garbage", "failing"].map((name) => [name, { destination: name, timeout_s: 30 }]),
  );
  envs.hosts = {
    ...base,
    PATH: `${bin}:${base.PATH ?? ""}`,
    XDG_CONFIG_HOME: configDir("hosts", { "config.json": JSON.stringify({ hosts }) }),
    FAKE_SSH_DIR: sshDir,
    FAKE_SSH_NODE: process.execPath,
    FAKE_SSH_CLI: CLI_BIN,
  };

  // config.json wrong in every section, in hostile ways.
  envs.config = {
    ...base,
    XDG_CONFIG_HOME: configDir("bad", {
      "config.json": JSON.stringify({
        agents: [
          { id: "evil0", process_names: [EVIL] },
          { id: "evil1", process_names: ["x"], events: { done: EVIL } },
          { id: "evil2", process_names: ["y"], events: { [EVIL]: "idle" } },
          EVIL,
          { id: "evil4", process_names: [4] },
          { id: "evil5", process_names: ["z"], [EVIL]: 1 },
          { id: EVIL, process_names: ["w"] },
        ],
        notifications: { states: { waiting: [EVIL] } },
        hosts: { [EVIL]: { destination: EVIL } },
        [EVIL]: true,
      }),
    }),
  };
  envs["not-json"] = { ...base, XDG_CONFIG_HOME: configDir("not-json", { "config.json": `{${EVIL}` }) };
  envs.profiles = {
    ...base,
    XDG_CONFIG_HOME: configDir("profiles", {
      "profiles.json": JSON.stringify({ profiles: { review: { command: "true", [EVIL]: EVIL } } }),
    }),
  };

  // The installer: a user's settings.json with hooks of their own holding hostile text, and one that is not JSON.
  const claudeHome = (name: string, settings: string) => {
    const dir = join(sandbox.root, `claude-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "settings.json"), settings);
    return { ...base, CLAUDE_CONFIG_DIR: dir };
  };
  envs.install = claudeHome(
    "hooks",
    JSON.stringify(
      {
        [EVIL]: EVIL,
        hooks: {
          SessionStart: [{ matcher: EVIL, hooks: [{ type: "command", command: `echo ${EVIL}` }] }],
          [EVIL]: [{ hooks: [{ type: "command", command: EVIL }] }],
        },
      },
      null,
      2,
    ),
  );
  envs["install-broken"] = claudeHome("broken", `{"hooks": ${EVIL}`);

  // The state dir at a hostile path, and a symlink: refused, its path quoted.
  const hostilePath = join(sandbox.root, `state${EVIL_NAME}`);
  mkdirSync(join(sandbox.root, "elsewhere"));
  symlinkSync(join(sandbox.root, "elsewhere"), hostilePath);
  envs["state-path"] = { ...base, TONGS_AGENTS_STATE_DIR: hostilePath };
});

afterAll(() => {
  const raw = outcomes.filter((outcome) => outcome.raw > 0);
  printFigures("terminal text", {
    rows: outcomes.length,
    "hostile sequences": Object.keys(HOSTILE).join(", "),
    "rows showing the hostile text (visibly)": outcomes.filter((outcome) => outcome.shown).length,
    "raw control characters": raw.reduce((sum, outcome) => sum + outcome.raw, 0),
    "rows with any": raw.map((outcome) => outcome.row).join("; ") || "none",
  });
  sandbox.cleanup();
});

describe("no agent, host, config or argument text reaches the terminal raw", () => {
  it.each(ROWS.map((row) => [`${row.name}: ${row.args.map((arg) => JSON.stringify(arg).slice(0, 24)).join(" ")}`, row] as const))(
    "%s",
    async (_name, row) => {
      const run = await runCli(row, envs[row.env], sandbox.root);
      const found = [
        ...rawControls(run.stdout).map((where) => `stdout: ${where}`),
        ...rawControls(run.stderr).map((where) => `stderr: ${where}`),
      ];
      const text = run.stdout.toString("utf8") + run.stderr.toString("utf8");
      outcomes.push({ row: row.name, code: run.code, raw: found.length, shown: SHOWN.test(text) });
      expect(found, text.slice(0, 2000)).toEqual([]);
      if (row.shows) expect(text, `the hostile text should be shown, made visible (exit ${run.code})`).toMatch(SHOWN);
      if (row.tmux) expect(tmuxFormats(run.stdout.toString("utf8"))).toEqual([]);
    },
  );
});
