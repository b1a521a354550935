// npm run bench: figures compared side by side in one run (runs interleaved, so machine noise hits every contender
// alike). Prints a Markdown table; docs/benchmarks.md holds a copy with the machine it ran on.
import { spawn, spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { runAsClaude } from "./as-claude.mjs";
import { seedRecords, startToken } from "./many-records.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOOK = join(root, "bin", "tongs-agents-hook.cjs");
const CLI = join(root, "bin", "tongs-agents.js");
const runs = Number(process.env.BENCH_RUNS ?? 40);

// The hook must find a harness process in its ancestry, as it does under Claude Code (bench/as-claude.mjs).
const temp = runAsClaude(import.meta.url, "tongs-bench-");
const env = { ...process.env, HOME: temp, TONGS_AGENTS_STATE_DIR: join(temp, "state") };
for (const name of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_DEBUG", "TONGS_AGENTS_LAUNCH_ID", "TONGS_AGENTS_PROFILE"]) delete env[name];
const payload = JSON.stringify({ session_id: "bench", cwd: "/w", hook_event_name: "UserPromptSubmit", prompt: "x".repeat(200) });

function timeOnce(file, args, input, options = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(file, args, { input, env, ...options });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${file} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

/** Interleave contenders run by run; return stats per contender. */
function compare(contenders, count = runs) {
  const samples = contenders.map(() => []);
  for (const contender of contenders) contender.run(); // warm the page cache
  for (let index = 0; index < count; index++) contenders.forEach((contender, at) => samples[at].push(contender.run()));
  return contenders.map((contender, at) => ({ name: contender.name, ...stats(samples[at]) }));
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;
const lines = [];
const print = (text = "") => {
  lines.push(text);
  console.log(text);
};

print(
  `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${process.platform} ${process.arch}, Node ${process.version}; ${runs} runs each, interleaved.`,
);
print();

// 1. One hook event against node -e 0 and a jq one-liner.
spawnSync(process.execPath, [HOOK, "session-start", "--agent", "claude"], { input: payload, env });
const jqLog = join(temp, "events.jsonl");
const hasJq = spawnSync("jq", ["--version"]).status === 0;
const single = compare([
  { name: "`node -e 0` (floor of any Node hook)", run: () => timeOnce(process.execPath, ["-e", "0"], "") },
  {
    name: "tongs-agents-hook prompt-submit (validate, identify, lock, write)",
    run: () => timeOnce(process.execPath, [HOOK, "prompt-submit", "--agent", "claude"], payload),
  },
  ...(hasJq
    ? [
        {
          name: "`sh -c 'jq -c . >> events.jsonl'` (append raw JSON)",
          run: () => timeOnce("/bin/sh", ["-c", `jq -c . >> '${jqLog}'`], payload),
        },
      ]
    : []),
]);
const floor = single[0].median;
print("| one event | median | p90 | mean | median vs `node -e 0` |");
print("|---|---|---|---|---|");
for (const row of single)
  print(`| ${row.name} | ${fmt(row.median)} | ${fmt(row.p90)} | ${fmt(row.mean)} | ${(row.median / floor).toFixed(2)}x |`);
print();

// 2. 32 concurrent events on one record.
async function burst(count) {
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from(
      { length: count },
      (_, index) =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [HOOK, "tool-use", "--agent", "claude"], { env });
          child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`hook exited ${code}`))));
          child.stdin.end(JSON.stringify({ session_id: "burst", cwd: "/w", tool_name: `T${index}` }));
        }),
    ),
  );
  return Number(process.hrtime.bigint() - started) / 1e6;
}
const burstRecord = () => {
  const digest = createHash("sha256")
    .update(JSON.stringify(["claude", "burst", `pid:${process.pid}@${startToken()}`]))
    .digest("hex");
  return JSON.parse(spawnSync("cat", [join(temp, "state", "sessions", `${digest}.json`)], { encoding: "utf8" }).stdout || "{}");
};
spawnSync(process.execPath, [HOOK, "session-start", "--agent", "claude"], {
  input: JSON.stringify({ session_id: "burst", cwd: "/w" }),
  env,
});
const bursts = [];
const burstRounds = Math.max(3, Math.round(runs / 10));
for (let round = 0; round < burstRounds; round++) bursts.push(await burst(32));
spawnSync(process.execPath, [HOOK, "stop", "--agent", "claude"], { input: JSON.stringify({ session_id: "burst", cwd: "/w" }), env });
const applied = burstRecord().arrival_sequence;
const burstStats = stats(bursts);
print(`| 32 concurrent events on one record (${burstRounds} bursts) | median | p90 |`);
print("|---|---|---|");
print(`| wall time of the whole burst | ${fmt(burstStats.median)} | ${fmt(burstStats.p90)} |`);
print(`| per event (burst / 32) | ${fmt(burstStats.median / 32)} | ${fmt(burstStats.p90 / 32)} |`);
print(`| events applied after the bursts and one more event (expected ${burstRounds * 32 + 2}) | ${applied} | |`);
print();

// 3. Listing many records: a state dir that kept 1,000 or 10,000 sessions of which 50 are live (sleep processes standing
// in for agents, each record naming its PID and start token as the hook writes them), the rest of processes long gone.
// `list` shows the 50; `list --json --all` every record.
const standIns = Array.from({ length: 50 }, () => spawn("sleep", ["3600"], { stdio: "ignore" }));
function seed(count) {
  const state = join(temp, `list-${count}`);
  seedRecords(join(state, "sessions"), count, standIns);
  return state;
}
const listRuns = Math.max(5, Math.round(runs / 4));
// Each listing against `node -e 0`, runs interleaved. With the drainer running (it keeps the sessions index once the
// sessions dir is quiet: docs/contract.md, "Storage"; then only the live records' files are read), and without one
// (every record file read).
const drainerBin = join(root, "bin", "tongs-agents-drainer.cjs");
const SESSIONS_INDEX = "sessions-index.json"; // src/store/record-cache.ts
print(`| listing (${listRuns} runs, interleaved) | records | median | p90 | median vs \`node -e 0\` |`);
print("|---|---|---|---|---|");
for (const count of [1000, 10000]) {
  const state = seed(count);
  const listEnv = { ...env, TONGS_AGENTS_STATE_DIR: state };
  const list = (args) => () => timeOnce(process.execPath, [CLI, ...args], "", { env: listEnv, maxBuffer: 256 * 1024 * 1024 });
  const floorRun = () => timeOnce(process.execPath, ["-e", "0"], "");
  for (const drainer of [false, true]) {
    const child = drainer ? spawn(process.execPath, [drainerBin, state], { env: listEnv, stdio: "ignore" }) : undefined;
    // The drainer makes the index once the dir has been quiet for its racy window (2 s) and its sweep comes (1 s).
    for (let waited = 0; child && !existsSync(join(state, SESSIONS_INDEX)); waited += 100) {
      if (waited > 30_000) throw new Error("the drainer wrote no sessions index within 30 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const rows = compare(
      [
        { name: "node -e 0", run: floorRun },
        { name: "`tongs-agents list`", run: list(["list"]) },
        { name: "`tongs-agents list --json --all`", run: list(["list", "--json", "--all"]) },
      ],
      listRuns,
    );
    child?.kill("SIGKILL");
    for (const row of rows.slice(1))
      print(
        `| ${row.name}, ${drainer ? "drainer running" : "no drainer"} | ${count.toLocaleString("en")} | ${fmt(row.median)} | ${fmt(row.p90)} | ${(row.median / rows[0].median).toFixed(2)}x |`,
      );
  }
}
for (const standIn of standIns) standIn.kill();
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${lines.join("\n")}\n`);
