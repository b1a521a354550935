// node bench/hook-input.mjs: the hook's wall time by payload size and by kind of stdin, and with stdin held open
// (docs/reliability.md, "Hook input"). Rows run interleaved, so machine noise hits all of them alike. Every hook is
// started by a process named `claude` (this script, re-run through a symlink), so its identity resolves and each run
// writes the record as it would under Claude Code. Needs the built hook (npm run build) and bash.
import { spawn } from "node:child_process";
import { cpus } from "node:os";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAsClaude } from "./as-claude.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOOK = join(root, "bin", "tongs-agents-hook.cjs");
const runs = Number(process.env.BENCH_INPUT_RUNS ?? 10);

const temp = runAsClaude(import.meta.url, "tongs-bench-input-");
const env = {
  ...process.env,
  HOME: temp,
  TONGS_AGENTS_STATE_DIR: join(temp, "state"),
  TONGS_AGENTS_DEBUG: "1",
  NODE: process.execPath,
  HOOK,
};
for (const name of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_LAUNCH_ID", "TONGS_AGENTS_PROFILE"]) delete env[name];
const logPath = join(temp, "state", "hook.log");

const base = { session_id: "bench", transcript_path: "/home/user/.claude/projects/p/bench.jsonl", cwd: "/w" };
const payloads = {
  small: {
    ...base,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "true" },
    tool_response: { stdout: "", stderr: "" },
  },
  "80 KB": {
    ...base,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "cat" },
    tool_response: { stdout: "line of output\n".repeat(5500), stderr: "" },
  },
  "16 MB": {
    ...base,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "cat" },
    tool_response: { stdout: "x".repeat(16_000_000), stderr: "" },
  },
  "20 MB (past the 16 MiB cap)": { ...base, hook_event_name: "Stop", last_assistant_message: `Done. ${"y".repeat(20_000_000)}` },
};
const files = Object.fromEntries(
  Object.entries(payloads).map(([name, payload], index) => {
    const path = join(temp, `payload-${index}.json`);
    writeFileSync(path, JSON.stringify(payload));
    return [name, path];
  }),
);
const aliasOf = (name) => (name.startsWith("20 MB") ? "stop" : "tool-done");

/** Wall time of one run; rejects unless the hook exited 0 without output. */
function time(file, args, { input, hold = false, extraEnv = {} } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(file, args, { env: { ...env, ...extraEnv }, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.stdin.on("error", () => undefined);
    if (input !== undefined) child.stdin.write(input);
    if (!hold) child.stdin.end();
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (hold) child.stdin.destroy();
      if (code !== 0 || output !== "") reject(new Error(`${args.join(" ")} exited ${code}: ${output}`));
      else resolve(ms);
    });
  });
}

// Through /bin/sh -c as Claude Code runs hooks: `exec` keeps the socketpair as the hook's stdin; `cat file |` gives a pipe.
const viaSocket = (name) => () =>
  time("/bin/sh", ["-c", `exec "$NODE" "$HOOK" ${aliasOf(name)} --agent claude`], { input: readFileSync(files[name]) });
const viaPipe = (name) => () =>
  time("/bin/sh", ["-c", `cat "$FILE" | exec "$NODE" "$HOOK" ${aliasOf(name)} --agent claude`], { extraEnv: { FILE: files[name] } });
const heldSocket = (input) => () => time("/bin/sh", ["-c", 'exec "$NODE" "$HOOK" tool-done --agent claude'], { input, hold: true });
// bash: a process substitution is an anonymous pipe whose writer (sleep) holds it open; killed once the hook is gone.
const heldPipe = (input) => () =>
  time(
    "bash",
    [
      "-c",
      'exec 3< <(printf "%s" "$PAYLOAD"; exec sleep 30); holder=$!; "$NODE" "$HOOK" tool-done --agent claude <&3; code=$?; kill $holder; exit $code',
    ],
    { extraEnv: { PAYLOAD: input } },
  );

const whole = JSON.stringify(payloads.small);
// Cut after cwd: what a writer that stalls mid-payload leaves, and enough to apply (hook-input.ts).
const half = whole.slice(0, whole.indexOf('"hook_event_name"'));
const rows = [
  ...Object.keys(payloads).flatMap((name) => [
    [`${name} payload, socketpair stdin`, viaSocket(name)],
    [`${name} payload, pipe stdin (\`cat file \\|\`)`, viaPipe(name)],
  ]),
  ["stdin held open after a whole payload, socketpair", heldSocket(whole)],
  ["stdin held open after a whole payload, pipe", heldPipe(whole)],
  ["stdin held open after half a payload, socketpair (input bound)", heldSocket(half)],
  ["stdin held open after half a payload, pipe (input bound)", heldPipe(half)],
];

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9), max: sorted[sorted.length - 1] };
}

await time(process.execPath, [HOOK, "session-start", "--agent", "claude"], { input: JSON.stringify(base) });
const samples = rows.map(() => []);
for (let index = 0; index < runs; index++) for (const [at, [, run]] of rows.entries()) samples[at].push(await run());
// Every run must have applied its event (the debug log names any that did not).
const outcomes = readFileSync(logPath, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line));
const notWritten = outcomes.filter((outcome) => outcome.action !== "written");
const fmt = (ms) => `${ms.toFixed(0)} ms`;
console.log(
  `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${process.platform} ${process.arch}, Node ${process.version}; ${runs} runs each, interleaved.`,
);
console.log();
console.log("| hook wall time (spawn to exit) | median | p90 | max |");
console.log("|---|---|---|---|");
for (const [at, [name]] of rows.entries()) {
  const row = stats(samples[at]);
  console.log(`| ${name} | ${fmt(row.median)} | ${fmt(row.p90)} | ${fmt(row.max)} |`);
}
console.log();
console.log(
  `Events not written: ${notWritten.length} of ${outcomes.length}${notWritten.length ? ` (${JSON.stringify(notWritten[0])})` : ""}`,
);
