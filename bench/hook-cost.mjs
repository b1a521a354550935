// npm run bench (part): what one hook event costs the agent, measured as the agent sees it: `/bin/sh -c <command>`
// with the payload on stdin, from the spawn to the moment the shell has exited and its pipes closed (Claude Code's
// way of running a command hook). Our hook as the installer writes it in both modes (the shim and the synchronous
// Node hook) beside the peers, interleaved run by run so machine noise hits every contender alike: `node -e 0`, a
// bash+jq append and a minimal Python 3 standard-library hook (bench/peer-hook.py). For the shim, the time until the
// drainer has applied the event is printed too (the agent does not wait for it; the next run starts after it). Runs
// inside a process named `claude` (bench/as-claude.mjs): the hook finds its harness.
// Gemini CLI and Qwen Code, which the installer also gives the shim, run a hook's command with `bash -c`, not
// `/bin/sh -c`: their rows, and a jq append to compare them with, are timed that way (Codex, whose hook is the codex
// process's own child, is not timed separately). Copilot CLI keeps the synchronous hook (copilot/install.ts says why).
// One payload serves every row; only Claude's events find their harness.
import { spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAsClaude } from "./as-claude.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOOK = join(root, "bin", "tongs-agents-hook.cjs");
const SHIM = join(root, "bin", "tongs-agents-hook.sh");
const PEER = join(root, "bench", "peer-hook.py");
const runs = Number(process.env.BENCH_RUNS ?? 40);

const temp = runAsClaude(import.meta.url, "tongs-bench-hook-");
const state = join(temp, "state");
const env = { ...process.env, HOME: temp, TONGS_AGENTS_STATE_DIR: state };
for (const name of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_DEBUG", "TONGS_AGENTS_LAUNCH_ID", "TONGS_AGENTS_PROFILE"]) delete env[name];
const payload = JSON.stringify({
  session_id: "bench",
  transcript_path: "/tmp/transcript.jsonl",
  cwd: "/w",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "ls -la", description: "List files" },
  tool_use_id: "toolu_01",
});
const spool = join(state, "incoming");
const peerDir = join(temp, "peer");
mkdirSync(peerDir, { recursive: true });

const q = (word) => `'${word.replaceAll("'", "'\\''")}'`;
const node = process.execPath;
const has = (program, args) => spawnSync(program, args, { stdio: "ignore" }).status === 0;

function timeShell(command, shell = "/bin/sh") {
  const started = process.hrtime.bigint();
  const result = spawnSync(shell, ["-c", command], { input: payload, env });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0 || result.stdout.length > 0) throw new Error(`${command} exited ${result.status}: ${result.stderr}`);
  return ms;
}

/** Wait (polling) until the drainer has taken the event: the queue holds no entry. */
function drained(since, applied) {
  const deadline = Date.now() + 30_000;
  while (existsSync(spool) && readdirSync(spool).some((name) => name.endsWith(".ev"))) {
    if (Date.now() > deadline) throw new Error("the drainer did not apply the event within 30 s");
    spawnSync("sleep", ["0.002"]);
  }
  applied.push(Number(process.hrtime.bigint() - since) / 1e6);
}

const contenders = [
  { name: "`node -e 0` (floor of any Node hook)", command: `${q(node)} -e 0` },
  {
    name: "`jq -c . >> events.jsonl` (bash+jq append)",
    command: `jq -c . >> ${q(join(temp, "events.jsonl"))}`,
    needs: ["jq", ["--version"]],
  },
  {
    name: "Python 3 stdlib hook (read, walk /proc, write a file)",
    command: `python3 ${q(PEER)} ${q(peerDir)}`,
    needs: ["python3", ["-V"]],
  },
  { name: "tongs-agents, sync (`install --hook sync`)", command: `${q(node)} ${q(HOOK)} tool-use --agent claude` },
  {
    name: "tongs-agents, shim (`install --hook shim`, default)",
    command: `/bin/sh ${q(SHIM)} ${q(node)} tool-use --agent claude`,
    after: drained,
  },
  {
    name: "`jq -c . >> events.jsonl` (bash+jq append), under `bash -c`",
    shell: "bash",
    command: `jq -c . >> ${q(join(temp, "events-bash.jsonl"))}`,
    needs: ["jq", ["--version"]],
  },
  ...["gemini", "qwen"].map((agent) => ({
    name: `tongs-agents, shim for ${agent}, under \`bash -c\``,
    shell: "bash",
    command: `/bin/sh ${q(SHIM)} ${q(node)} tool-use --agent ${agent}`,
    after: drained,
  })),
].filter((contender) => !contender.needs || has(...contender.needs));

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (quantile) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))];
  return { median: at(0.5), p90: at(0.9), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

// Warm the page cache and create the state dir, then interleave.
for (const contender of contenders) {
  const since = process.hrtime.bigint();
  timeShell(contender.command, contender.shell);
  contender.after?.(since, []);
}
const samples = contenders.map(() => []);
const applied = contenders.map(() => []);
for (let run = 0; run < runs; run++)
  contenders.forEach((contender, index) => {
    const since = process.hrtime.bigint();
    samples[index].push(timeShell(contender.command, contender.shell));
    contender.after?.(since, applied[index]);
  });

const lines = [];
const print = (text = "") => {
  lines.push(text);
  console.log(text);
};
const fmt = (ms) => `${ms.toFixed(1)} ms`;
print(
  `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${process.platform} ${process.arch}, Node ${process.version}; ${runs} runs each, interleaved; each run is \`/bin/sh -c <command>\` as Claude Code runs a hook (rows marked \`bash -c\`: as Gemini CLI and Qwen Code do).`,
);
print();
const rows = contenders.map((contender, index) => ({
  name: contender.name,
  shell: contender.shell ?? "/bin/sh",
  ...stats(samples[index]),
}));
print(`| agent-visible time per event | median | p90 | mean | median vs jq append (same shell) |`);
print("|---|---|---|---|---|");
for (const row of rows) {
  const jq = rows.find((other) => other.name.includes("jq") && other.shell === row.shell);
  print(
    `| ${row.name} | ${fmt(row.median)} | ${fmt(row.p90)} | ${fmt(row.mean)} | ${jq ? `${(row.median / jq.median).toFixed(2)}x` : "n/a"} |`,
  );
}
const behind = stats(applied[contenders.findIndex((contender) => contender.command.includes("--agent claude") && contender.after)]);
print(
  `| (shim) until the drainer applied the event (not agent-visible) | ${fmt(behind.median)} | ${fmt(behind.p90)} | ${fmt(behind.mean)} | |`,
);
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${lines.join("\n")}\n`);
