#!/usr/bin/env node
// Capture real hook event streams from the real Claude Code CLI for the replay corpus (test/fixtures/replay/).
//
//   node scripts/capture-replay.mjs <out-dir>                      # capture into <out-dir>/claude-raw.jsonl
//   node scripts/capture-replay.mjs --cut <out-dir> test/fixtures/replay   # one fixture per stream
//
// Runs the pinned Claude Code (`npm run live:deps`) interactively in a private tmux server, against a scripted model
// on 127.0.0.1 that answers marker words with the tool calls each scenario needs (two tools in one message, a Read of
// a big file, a big Write, a failing command, an API error, a held reply for Esc). Every hook event Claude fires is
// recorded as it arrives (recorder below), then written as one JSON line per event to <out-dir>/claude-raw.jsonl.
// `--cut` turns the raw log into one fixture per stream (STREAMS below; test/fixtures/replay/README.md).
// Needs tmux. Nothing here touches the real user's config: HOME and CLAUDE_CONFIG_DIR point into a temp dir.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { startScenarioModel } from "../e2e/provider/tool-scenarios.mjs";

const ALIASES = {
  SessionStart: "session-start",
  UserPromptSubmit: "prompt-submit",
  PreToolUse: "tool-use",
  PostToolUse: "tool-done",
  PostToolUseFailure: "tool-failed",
  PermissionRequest: "permission-request",
  Notification: "notification",
  Stop: "stop",
  StopFailure: "stop-failure",
  Elicitation: "elicitation",
  SessionEnd: "session-end",
};
/** One fixture per stream: [file name, the mark it starts at (a prefix of the mark's name), the mark it ends before]. */
const STREAMS = [
  ["claude-parallel-read-then-permission", "", "PARALLELSLOW"],
  ["claude-parallel-tool-finishes-while-asking", "PARALLELSLOW", "BIGREAD"],
  ["claude-big-read", "BIGREAD", "BIGWRITE"],
  ["claude-big-write-permission", "BIGWRITE", "FAILTOOL"],
  ["claude-tool-fails-after-approval", "FAILTOOL", "PARALLELSAME"],
  ["claude-same-tool-twice", "PARALLELSAME", "DENYNO"],
  ["claude-refused-with-no", "DENYNO", "DENYESC"],
  ["claude-refused-with-esc", "DENYESC", "HOLD"],
  ["claude-esc-mid-reply", "HOLD", "FAILAPI"],
  ["claude-api-error-then-clear", "FAILAPI", "exit"],
  ["claude-exit-resume-kill", "hello after clear", "end"],
];
/** Strings longer than this are stored as their length and first characters; the replay rebuilds them to size. */
const ELIDE_CHARS = 2048;

/**
 * Cut a raw capture into fixtures: paths of the temp dir rewritten to /home/user, long strings elided, each event with
 * its harness process (the hook shell's parent) and the spawn order of the shell Claude started for it.
 */
function cut(rawDir, fixturesDir) {
  const raw = readFileSync(join(rawDir, "claude-raw.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const { claude, marks } = JSON.parse(readFileSync(join(rawDir, "claude-marks.json"), "utf8"));
  const firstCwd = JSON.parse(raw[0].stdin).cwd;
  const root = firstCwd.slice(0, firstCwd.lastIndexOf("/project"));
  const rewrite = (value) => {
    if (typeof value === "string") {
      const text = value
        .split(`${root.replaceAll("/", "-")}-project`)
        .join("-home-user-project")
        .split(`${root}/project`)
        .join("/home/user/project")
        .split(`${root}/home`)
        .join("/home/user")
        .split(root)
        .join("/home/user");
      return text.length > ELIDE_CHARS ? { $elided: { chars: text.length, head: text.slice(0, 64) } } : text;
    }
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item)]));
    return value;
  };
  const at = (prefix) => (prefix === "" ? 0 : marks.find((mark) => mark.name.startsWith(prefix)).events);
  mkdirSync(fixturesDir, { recursive: true });
  for (const [name, from, to] of STREAMS) {
    const events = raw.slice(at(from), at(to));
    const t0 = events[0]?.started ?? 0;
    const lines = [
      {
        stream: name,
        origin: "captured",
        harness: "claude",
        version: claude,
        how: "scripts/capture-replay.mjs: the real interactive CLI in tmux, scripted model on 127.0.0.1",
      },
    ];
    for (const event of events) {
      const fields = event.shellStat.slice(event.shellStat.lastIndexOf(")") + 2).split(" ");
      lines.push({
        t: event.started - t0,
        event: event.event,
        alias: ALIASES[event.event],
        process: Number(fields[1]),
        spawn: { start: Number(fields[19]), pid: Number(event.shellStat.split(" ")[0]) },
        payload: rewrite(JSON.parse(event.stdin)),
      });
    }
    writeFileSync(join(fixturesDir, `${name}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  }
}

if (process.argv[2] === "--cut") {
  cut(process.argv[3], process.argv[4]);
  process.exit(0);
}
const out = process.argv[2];
if (!out) throw new Error("usage: node scripts/capture-replay.mjs <out-dir> | --cut <out-dir> <fixtures-dir>");
mkdirSync(out, { recursive: true });

const harnesses = JSON.parse(readFileSync(new URL("../test/live/harnesses.json", import.meta.url), "utf8"));
const { package: pkg, version, bin } = harnesses.claude;
const claudeBin = join(
  userInfo().homedir,
  ".cache",
  "tongs-agents",
  "harnesses",
  `${pkg.split("/").pop()}-${version}`,
  "node_modules",
  ".bin",
  bin,
);
if (!existsSync(claudeBin)) throw new Error(`${claudeBin} missing: run npm run live:deps`);

const root = mkdtempSync(join(tmpdir(), "tongs-capture-"));
const home = join(root, "home");
const config = join(home, ".claude");
const project = join(root, "project");
const log = join(root, "hooks.jsonl");
mkdirSync(config, { recursive: true });
mkdirSync(project, { recursive: true });
writeFileSync(join(project, "notes.txt"), "a small file\n");
writeFileSync(join(project, "big.txt"), `${"0123456789abcdef ".repeat(6000)}\n`); // about 100 KB: a big Read
const BIG_WRITE = "x".repeat(90_000); // a Write whose tool_input alone is past 64 KiB

// The recorder: one JSON line per hook run, with the time it started (ms) and the process facts an ordering needs.
const recorder = join(root, "recorder.cjs");
writeFileSync(
  recorder,
  `const fs = require("node:fs");
const started = Date.now();
const input = fs.readFileSync(0, "utf8");
let stat = "";
try { stat = fs.readFileSync("/proc/" + process.ppid + "/stat", "utf8"); } catch {}
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ event: process.argv[2], started, hookPid: process.pid, shellStat: stat, stdin: input }) + "\\n");
`,
);
const EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUse",
  "PostToolUseFailure",
  "Notification",
  "Stop",
  "StopFailure",
  "Elicitation",
  "ElicitationResult",
  "SessionEnd",
];
const hooks = Object.fromEntries(
  EVENTS.map((event) => [event, [{ hooks: [{ type: "command", command: `${process.execPath} ${recorder} ${event}`, timeout: 5 }] }]]),
);
writeFileSync(join(config, "settings.json"), JSON.stringify({ permissions: { defaultMode: "default" }, hooks }, null, 2));
writeFileSync(
  join(config, ".claude.json"),
  JSON.stringify({
    hasCompletedOnboarding: true,
    hasSeenAutoDefaultNudge: true,
    projects: { [project]: { hasTrustDialogAccepted: true } },
  }),
);

// The scripted model (e2e/provider/tool-scenarios.mjs): a marker word in the prompt answers with these tool calls.
const model = await startScenarioModel({
  PARALLEL: () => [
    { name: "Read", input: { file_path: join(project, "notes.txt") } },
    { name: "Bash", input: { command: "touch parallel-approved.txt", description: "Create a file" } },
  ],
  // Both concurrency-safe, so Claude runs them at once: a slow read-only command, and a Read outside the project,
  // which asks first. The command finishes while the dialog is still open.
  PARALLELSLOW: () => [
    { name: "Bash", input: { command: "sleep 4", description: "Wait a little" } },
    { name: "Read", input: { file_path: "/etc/hostname" } },
  ],
  BIGREAD: () => [{ name: "Read", input: { file_path: join(project, "big.txt") } }],
  BIGWRITE: () => [{ name: "Write", input: { file_path: join(project, "big-out.txt"), content: BIG_WRITE } }],
  DENYTOOL: () => [{ name: "Bash", input: { command: "touch denied.txt", description: "Create a file" } }],
  FAILTOOL: () => [{ name: "Bash", input: { command: "ls /no-such-directory-here", description: "List a directory" } }],
  PARALLELSAME: () => [
    { name: "Bash", input: { command: "touch same-one.txt", description: "Create one" } },
    { name: "Bash", input: { command: "touch same-two.txt", description: "Create two" } },
  ],
});

const socket = `tongs-capture-${process.pid}`;
const tmux = (...args) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
const env = {
  HOME: home,
  CLAUDE_CONFIG_DIR: config,
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_AUTH_TOKEN: "capture-token",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  PATH: `${join(claudeBin, "..")}:${process.env.PATH}`,
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const screen = () => tmux("capture-pane", "-p", "-J", "-t", "cap");
async function waitFor(what, ok, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (ok(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${text}`);
    await sleep(250);
  }
}
const events = () =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
async function waitForEvent(what, ok, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!events().some(ok)) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; events: ${events()
          .map((event) => event.event)
          .join(", ")}\n${screen()}`,
      );
    await sleep(250);
  }
}
const idle = () => waitFor("the input prompt", (text) => text.includes("? for shortcuts") || /❯\s*$/m.test(text), 90_000);
async function type(text) {
  tmux("send-keys", "-t", "cap", "-l", text);
  await waitFor(`'${text}' typed`, (shown) => shown.includes(text));
  tmux("send-keys", "-t", "cap", "Enter");
}
const marks = [];
const mark = (name) => marks.push({ name, at: Date.now(), events: events().length });
const stopCount = () => events().filter((event) => event.event === "Stop" || event.event === "StopFailure").length;
async function turn(prompt, during) {
  const before = stopCount();
  mark(prompt);
  await type(prompt);
  if (during) await during();
  await waitForEvent(`the end of turn '${prompt}'`, () => stopCount() > before, 120_000);
  await sleep(1500);
}
const dialog = () => waitFor("a permission dialog", (text) => text.includes("Do you want"));
/** Answer the dialog on screen with `key`, again if it is still there (a key sent as it was drawn can be lost). */
async function answer(key) {
  for (let attempt = 0; attempt < 4; attempt++) {
    await dialog();
    await sleep(500);
    tmux("send-keys", "-t", "cap", key);
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline && screen().includes("Do you want")) await sleep(200);
    if (!screen().includes("Do you want")) return;
  }
  throw new Error(`the dialog did not take ${key}:\n${screen()}`);
}
const approve = () => answer("1");
/** Choose the dialog's "No" option by its number (the options differ between dialogs). */
async function refuse() {
  const text = await dialog();
  const number = /(\d)\.\s+No\b/.exec(text)?.[1];
  if (!number) throw new Error(`no "No" option in the dialog:\n${text}`);
  await answer(number);
}

try {
  // tmux's `-e` does not override PATH for the pane's shell: the environment is given to the shell itself.
  tmux(
    "new-session",
    "-d",
    "-s",
    "cap",
    "-x",
    "140",
    "-y",
    "45",
    "-c",
    project,
    "env",
    ...Object.entries(env).map(([key, value]) => `${key}=${value}`),
    "bash",
    "--norc",
    "--noprofile",
  );
  await type("claude");
  await idle();
  mark("started");

  await turn("PARALLEL: read notes and create a file", async () => {
    await dialog();
    await sleep(8000); // Notification(permission_prompt) comes about 6 s after the dialog opens
    await approve();
  });
  await turn("PARALLELSLOW: wait and read outside", async () => {
    await dialog();
    await sleep(8000);
    await approve();
  });
  await turn("BIGREAD: read the big file");
  await turn("BIGWRITE: write a big file", approve);
  // Claude asks before `ls` outside the project: approve, then the command fails.
  await turn("FAILTOOL: list a missing directory", approve);
  await turn("PARALLELSAME: two commands", async () => {
    await approve();
    await approve();
  });
  // Refusals: "3. No" at the dialog, then Esc at another; what fires (if anything) is what this records.
  mark("DENYNO");
  await type("DENYTOOL: create a file I will refuse with No");
  await refuse();
  await sleep(4000);
  mark("DENYESC");
  await type("DENYTOOL: create a file I will refuse with Esc");
  await answer("Escape");
  await sleep(4000);
  // Esc while the reply is held: Claude fires no hook (anthropics/claude-code#9516).
  mark("HOLD");
  await type("HOLD then interrupt");
  await sleep(2000);
  tmux("send-keys", "-t", "cap", "Escape");
  await sleep(2000);
  model.release();
  await sleep(2000);
  // Esc puts the interrupted prompt back into the input: clear it before typing the next one.
  tmux("send-keys", "-t", "cap", "C-u");
  await sleep(500);
  await turn("FAILAPI: fail this turn");
  mark("clear");
  await type("/clear");
  await waitForEvent("SessionStart after /clear", (event) => event.event === "SessionStart" && JSON.parse(event.stdin).source === "clear");
  await sleep(1500);
  await turn("hello after clear");
  mark("exit");
  await type("/exit");
  await waitForEvent("SessionEnd", (event) => event.event === "SessionEnd" && JSON.parse(event.stdin).reason !== "clear");
  await sleep(1500);
  const resumeId = JSON.parse(
    events()
      .filter((event) => event.event === "SessionStart")
      .at(-1).stdin,
  ).session_id;
  mark("resume");
  await type(`claude --resume ${resumeId}`);
  await waitForEvent("SessionStart after resume", (event) => event.event === "SessionStart" && JSON.parse(event.stdin).source === "resume");
  await idle();
  await turn("hello after resume");
  mark("kill");
  const pane = tmux("list-panes", "-t", "cap", "-F", "#{pane_pid}").trim();
  const claudePid = execFileSync("pgrep", ["-P", pane, "-x", "claude"], { encoding: "utf8" }).trim();
  process.kill(Number(claudePid), "SIGKILL");
  await sleep(3000);
  mark("end");
} finally {
  writeFileSync(
    join(out, "claude-raw.jsonl"),
    `${events()
      .map((event) => JSON.stringify(event))
      .join("\n")}\n`,
  );
  writeFileSync(join(out, "claude-marks.json"), JSON.stringify({ claude: version, marks }, null, 2));
  writeFileSync(
    join(out, "claude-screen.txt"),
    (() => {
      try {
        return screen();
      } catch {
        return "";
      }
    })(),
  );
  spawnSync("tmux", ["-L", socket, "kill-server"]);
  await model.stop();
  // Claude may still be writing its own files there for a moment after its pane is gone.
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
  } catch (error) {
    process.stderr.write(`left ${root}: ${error}\n`);
  }
}
