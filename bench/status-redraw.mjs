// node bench/status-redraw.mjs: what redrawing the tmux status segment on a state change costs the agent, and what it
// gains. Two state dirs, each with its own drainer, fed alternately by the hook shim as Claude Code runs it
// (`/bin/sh -c <command>`, payload on stdin), each event a change of state (running, waiting, running, ...):
//   redraw  the state dir's segment is shown by a real tmux server (status-interval 15) with a client attached inside
//           an outer tmux: the drainer asks that server to redraw after applying (src/hook/status-refresh.ts);
//   none    no server shows its segment: the drainer applies and redraws nothing.
// Printed: the agent-visible time of each (paired, run by run, interleaved), their ratio, the time until the drainer
// applied the event, and, for `redraw`, the time until the attached client drew the new state on its status line.
import { execFileSync, spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAsClaude } from "./as-claude.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SHIM = join(root, "bin", "tongs-agents-hook.sh");
const CLI = join(root, "bin", "tongs-agents.js");
const runs = Number(process.env.BENCH_RUNS ?? 20);
const temp = runAsClaude(import.meta.url, "tongs-bench-redraw-");
const q = (word) => `'${word.replaceAll("'", "'\\''")}'`;
const node = process.execPath;

const base = { ...process.env, HOME: temp, TONGS_AGENTS_NOTIFY: "off", TONGS_AGENTS_SERVER: "off", TONGS_AGENTS_DISCOVERY: "off" };
for (const name of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_DEBUG"]) delete base[name];
const dirs = { redraw: join(temp, "state-redraw"), none: join(temp, "state-none") };
const envOf = (name) => ({ ...base, TONGS_AGENTS_STATE_DIR: dirs[name] });
for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: 0o700 });

// The tmux server that shows the `redraw` state dir's segment, and a client attached to it inside an outer server.
const inner = join(temp, "inner");
const outer = join(temp, "outer");
const tmux = (socket, ...args) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8", env: envOf("redraw") }).trimEnd();
tmux(inner, "-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "100", "-y", "10", "sleep 3600");
tmux(inner, "set", "-g", "status-interval", "15");
tmux(inner, "set", "-g", "status-right-length", "60");
tmux(inner, "set", "-g", "status-right", `[#(${q(node)} ${q(CLI)} status --format tmux)]`);
tmux(
  outer,
  "-f",
  "/dev/null",
  "new-session",
  "-d",
  "-s",
  "view",
  "-x",
  "100",
  "-y",
  "10",
  `env -u TMUX tmux -S ${q(inner)} attach -t main`,
);
const drawn = () => tmux(outer, "capture-pane", "-p", "-t", "view").split("\n").at(-1) ?? "";

const payload = (alias) =>
  JSON.stringify({ session_id: "bench", cwd: "/w", hook_event_name: alias, tool_name: "Bash", tool_input: { command: "ls" } });
function timeShim(name, alias) {
  const started = process.hrtime.bigint();
  const result = spawnSync("/bin/sh", ["-c", `/bin/sh ${q(SHIM)} ${q(node)} ${alias} --agent claude`], {
    input: payload(alias),
    env: envOf(name),
  });
  if (result.status !== 0 || result.stdout.length > 0) throw new Error(`the shim exited ${result.status}: ${result.stderr}`);
  return { started, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}
function until(condition, what) {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) {
      for (const socket of [outer, inner]) spawnSync("tmux", ["-S", socket, "kill-server"]);
      throw new Error(`timed out: ${what}`);
    }
    spawnSync("sleep", ["0.002"]);
  }
}
const queued = (name) =>
  existsSync(join(dirs[name], "incoming")) && readdirSync(join(dirs[name], "incoming")).some((file) => file.endsWith(".ev"));
const since = (started) => Number(process.hrtime.bigint() - started) / 1e6;

// A session in each state dir, and the segment drawn once (which notes the server as one that shows it).
for (const name of ["redraw", "none"]) {
  timeShim(name, "session-start");
  timeShim(name, "prompt-submit");
  until(() => !queued(name), "the first events to be applied");
}
tmux(inner, "refresh-client", "-S");
until(() => drawn().includes("▶1"), "the segment to show the running session");

const samples = { redraw: [], none: [] };
const applied = { redraw: [], none: [] };
const redrawn = [];
const glyph = { "permission-request": "●1", "tool-done": "▶1" };
for (let run = 0; run < runs; run++) {
  const alias = run % 2 === 0 ? "permission-request" : "tool-done";
  for (const name of run % 2 === 0 ? ["redraw", "none"] : ["none", "redraw"]) {
    const { started, ms } = timeShim(name, alias);
    samples[name].push(ms);
    until(() => !queued(name), "the drainer to apply the event");
    applied[name].push(since(started));
    if (name === "redraw") {
      until(() => drawn().includes(glyph[alias]), `the status line to show ${glyph[alias]}`);
      redrawn.push(since(started));
    }
  }
}
for (const socket of [outer, inner]) spawnSync("tmux", ["-S", socket, "kill-server"]);
for (const dir of Object.values(dirs)) {
  const pid = Number(String(existsSync(join(dir, "drainer.pid")) ? execFileSync("cat", [join(dir, "drainer.pid")]) : "").split(" ")[0]);
  if (pid > 0) spawnSync("kill", [String(pid)]);
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (quantile) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))];
  return { median: at(0.5), p90: at(0.9) };
}
const fmt = (ms) => `${ms.toFixed(1)} ms`;
const lines = [
  `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, tmux ${execFileSync("tmux", ["-V"], { encoding: "utf8" }).trim().split(" ")[1]}; ${runs} events each, interleaved in pairs, every event a change of state; status-interval 15.`,
  "",
  "| per event | redraw (a tmux server shows the segment) | none (no server shows it) | ratio redraw / none |",
  "|---|---|---|---|",
];
const row = (label, a, b) => {
  const [x, y] = [stats(a), stats(b)];
  lines.push(`| ${label}, median | ${fmt(x.median)} | ${fmt(y.median)} | ${(x.median / y.median).toFixed(2)} |`);
  lines.push(`| ${label}, p90 | ${fmt(x.p90)} | ${fmt(y.p90)} | ${(x.p90 / y.p90).toFixed(2)} |`);
};
row("agent-visible (the shim, `/bin/sh -c`)", samples.redraw, samples.none);
row("until the drainer applied it (not agent-visible)", applied.redraw, applied.none);
const shown = stats(redrawn);
lines.push(
  `| until the attached client drew the new state, median / p90 | ${fmt(shown.median)} / ${fmt(shown.p90)} | at the next status-interval tick: up to 15 s | |`,
);
console.log(lines.join("\n"));
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${lines.join("\n")}\n`);
