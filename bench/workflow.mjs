// npm run bench, part 2: the tmux workflow. Picker first paint in a real pseudo-terminal with 500 sessions, `status`
// and `next`, and `focus` end to end against the bare tmux command for the same pane; each against `node -e 0` on the
// same Node, runs interleaved.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pty from "@lydell/node-pty";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(root, "bin", "tongs-agents.js");
// The shell client (what the tmux block's next key and status segment run): `sh <it> <node> <verb> ...`.
const KEY = ["/bin/sh", join(root, "bin", "tongs-agents-key.sh"), process.execPath];
const runs = Number(process.env.BENCH_RUNS ?? 40);
const temp = mkdtempSync(join(tmpdir(), "tongs-bench-workflow-"));
const stateDir = join(temp, "state");
// Every verb in its own process (no keypress server); `served` rows go through the server started below.
const served = { ...process.env, HOME: temp, TONGS_AGENTS_STATE_DIR: stateDir };
for (const name of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_DEBUG", "TONGS_AGENTS_SERVER"]) delete served[name];
const env = { ...served, TONGS_AGENTS_SERVER: "off" };
const inner = join(temp, "inner");
const outer = join(temp, "outer");
const tmux = (socket, ...args) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8", env }).trim();

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9) };
}
const fmt = (ms) => `${ms.toFixed(1)} ms`;
function timeSync(file, args, runEnv = env, expected = [0, 5]) {
  const started = process.hrtime.bigint();
  const result = spawnSync(file, args, { env: runEnv, stdio: "ignore" });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (!expected.includes(result.status)) throw new Error(`${file} ${args.join(" ")} exited ${result.status}`);
  return ms;
}

/** Time from spawning the picker in a pty until its first full screen (500 rows known) has been written. */
function pickerFirstPaint(cli = CLI, runEnv = env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const picker = pty.spawn(process.execPath, [cli, "pick"], { cols: 140, rows: 40, env: runEnv });
    let output = "";
    let done = false;
    picker.onData((data) => {
      output += data;
      if (!done && output.includes("500 sessions") && output.includes("esc quit")) {
        done = true;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        picker.write("\u0003"); // Ctrl-C: every printable key types into the filter (fzf convention)
        picker.onExit(() => resolve(ms));
      }
    });
    picker.onExit(({ exitCode }) => !done && reject(new Error(`picker exited ${exitCode} before painting: ${output.slice(-300)}`)));
  });
}

// 500 sessions: one agent process alive in a tmux pane (the `next` and `focus` target), the rest records of this
// process (alive, so nothing is stale) spread over every state.
tmux(inner, "new-session", "-d", "-s", "work", "-x", "120", "-y", "40", "sleep 3600");
tmux(inner, "new-window", "-d", "-t", "work:", "sleep 3600");
const pane = tmux(inner, "list-panes", "-t", "work:1", "-F", "#{pane_id}");
const serverPid = tmux(inner, "display-message", "-p", "#{pid}");
tmux(outer, "new-session", "-d", "-s", "view", "-x", "120", "-y", "40", `env -u TMUX tmux -S '${inner}' attach -t work`);
for (let tries = 0; tries < 50 && tmux(inner, "list-clients", "-F", "#{client_tty}") === ""; tries++) execFileSync("sleep", ["0.1"]);
const client = tmux(inner, "list-clients", "-F", "#{client_tty}");
const stat = readFileSync(`/proc/${process.pid}/stat`, "utf8");
const token = `linux:${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
const sessions = join(stateDir, "sessions");
mkdirSync(sessions, { recursive: true, mode: 0o700 });
const now = new Date().toISOString();
const statuses = ["running", "idle", "started", "running", "idle"];
for (let index = 0; index < 500; index++) {
  const status = index === 0 ? "waiting" : statuses[index % statuses.length];
  const instance = `pid:${process.pid}@${token}`;
  const digest = createHash("sha256")
    .update(JSON.stringify(["claude", `bench-${index}`, instance]))
    .digest("hex");
  writeFileSync(
    join(sessions, `${digest}.json`),
    JSON.stringify({
      schema_version: 1,
      canonical_id: `fleet:v1:claude:${digest}`,
      harness: "claude",
      session_id: `bench-${index}`,
      instance_id: instance,
      identity: "process",
      pid: process.pid,
      process_start: token,
      cwd: `/work/project-${index % 40}`,
      status,
      detail: `step ${index}`,
      tool: "",
      sequence: null,
      arrival_sequence: 1,
      last_event: "claude.stop",
      created_at: now,
      updated_at: now,
      status_changed_at: now,
      terminal: { env: index === 0 ? { TMUX: `${inner},${serverPid},0`, TMUX_PANE: pane } : {} },
    }),
  );
}

const targetRecord = join(
  sessions,
  `${createHash("sha256")
    .update(JSON.stringify(["claude", "bench-0", `pid:${process.pid}@${token}`]))
    .digest("hex")}.json`,
);
const leastNodeFocus = `
const [record, socket, client, pane] = process.argv.slice(1);
JSON.parse(require("node:fs").readFileSync(record, "utf8"));
const shown = require("node:child_process").spawnSync("tmux", ["-S", socket, "switch-client", "-c", client, "-t", pane, ";", "display", "-p", "-c", client, "#{pane_id}"], { encoding: "utf8", timeout: 3000 });
if (shown.stdout.trim() !== pane) process.exit(1);`;

// BENCH_BASELINE=<another checkout's bin/tongs-agents.js>: its status, next, focus and picker run in the same interleaved run
// (before/after a change), on a copy of the state dir: the validated-record cache is per build, and two builds sharing
// one would each rewrite it on every run.
const baseline = process.env.BENCH_BASELINE;
const baselineEnv = { ...env, TONGS_AGENTS_STATE_DIR: join(temp, "state-baseline") };
if (baseline) {
  cpSync(stateDir, baselineEnv.TONGS_AGENTS_STATE_DIR, { recursive: true });
  // The state dir and its sessions dir must be private; cpSync does not keep their modes.
  for (const dir of ["", "sessions"]) chmodSync(join(baselineEnv.TONGS_AGENTS_STATE_DIR, dir), 0o700);
}
const contenders = [
  { name: "`node -e 0` (floor)", run: () => timeSync(process.execPath, ["-e", "0"]) },
  {
    name: "`tongs-agents status --format tmux` (500 sessions)",
    run: () => timeSync(process.execPath, [CLI, "status", "--format", "tmux"]),
  },
  // Every other row runs after earlier listings, as a status line does; this one as if all 500 records had changed.
  {
    name: "the same `status`, validated-record cache removed first (every record validated)",
    run: () => (
      rmSync(join(stateDir, "validated-records.json"), { force: true }),
      timeSync(process.execPath, [CLI, "status", "--format", "tmux"])
    ),
  },
  {
    name: "`tongs-agents next --client <tty>` (500 sessions, lands on the waiting pane)",
    run: () => timeSync(process.execPath, [CLI, "next", "--client", client]),
  },
  {
    name: "`tongs-agents focus <id> --client <tty>` (end to end, verified)",
    run: () => timeSync(process.execPath, [CLI, "focus", "bench-0", "--client", client]),
  },
  // What any served verb costs before its own work: the client process, and one round trip (`show` with no query is
  // a usage error: exit 2, nothing listed).
  {
    name: "keypress server: `show` with no query (the client and a round trip, no work)",
    run: () => timeSync(process.execPath, [CLI, "show"], served, [2]),
  },
  {
    name: "keypress server: `status --format tmux`",
    run: () => timeSync(process.execPath, [CLI, "status", "--format", "tmux"], served),
  },
  {
    name: "keypress server: `next --client <tty>`",
    run: () => timeSync(process.execPath, [CLI, "next", "--client", client], served),
  },
  {
    name: "keypress server: `focus <id> --client <tty>`",
    run: () => timeSync(process.execPath, [CLI, "focus", "bench-0", "--client", client], served),
  },
  {
    name: "keypress server, shell client: `show` with no query (the client and a round trip, no work)",
    run: () => timeSync(KEY[0], [...KEY.slice(1), "show"], served, [2]),
  },
  {
    name: "keypress server, shell client: `status --format tmux`",
    run: () => timeSync(KEY[0], [...KEY.slice(1), "status", "--format", "tmux"], served),
  },
  {
    name: "keypress server, shell client: `next --client <tty>`",
    run: () => timeSync(KEY[0], [...KEY.slice(1), "next", "--client", client], served),
  },
  {
    name: "keypress server, shell client: `focus <id> --client <tty>`",
    run: () => timeSync(KEY[0], [...KEY.slice(1), "focus", "bench-0", "--client", client], served),
  },
  {
    name: "bare `tmux switch-client -c <tty> -t %N` (same pane, unverified)",
    run: () => timeSync("tmux", ["-S", inner, "switch-client", "-c", client, "-t", pane]),
  },
  // The least any focus written in Node can cost: start Node, read the target's record, run the tmux command that
  // switches and verifies, in one blocking spawn. No listing, no lookup, no checks: a bound, not a contender.
  {
    name: "the least a Node focus can do: read one record, one blocking `tmux switch-client ; display` (a bound)",
    run: () => timeSync(process.execPath, ["-e", leastNodeFocus, targetRecord, inner, client, pane]),
  },
  ...(baseline
    ? [
        {
          name: "baseline build: `status --format tmux` (500 sessions)",
          run: () => timeSync(process.execPath, [baseline, "status", "--format", "tmux"], baselineEnv),
        },
        {
          name: "baseline build: `next --client <tty>`",
          run: () => timeSync(process.execPath, [baseline, "next", "--client", client], baselineEnv),
        },
        {
          name: "baseline build: `focus <id> --client <tty>`",
          run: () => timeSync(process.execPath, [baseline, "focus", "bench-0", "--client", client], baselineEnv),
        },
      ]
    : []),
];
// The keypress server, as the tmux block starts it; stopped (by its socket) at the end.
execFileSync(process.execPath, [CLI, "serve", "--detach"], { env: served, stdio: "ignore" });
const samples = contenders.map(() => []);
const paints = [];
const servedPaints = [];
try {
  const baselinePaints = [];
  for (const contender of contenders) contender.run();
  await pickerFirstPaint();
  await pickerFirstPaint(CLI, served);
  if (baseline) await pickerFirstPaint(baseline, baselineEnv);
  for (let index = 0; index < runs; index++) {
    contenders.forEach((contender, at) => samples[at].push(contender.run()));
    if (index % 4 === 0) paints.push(await pickerFirstPaint());
    if (index % 4 === 0) servedPaints.push(await pickerFirstPaint(CLI, served));
    if (baseline && index % 4 === 0) baselinePaints.push(await pickerFirstPaint(baseline, baselineEnv));
  }
  // The keypress server rows measured the server, not a silent fallback: it counts what it served.
  const status = JSON.parse(execFileSync(process.execPath, [CLI, "serve", "--status", "--json"], { env: served, encoding: "utf8" }));
  const servedRows = contenders.filter((contender) => contender.name.startsWith("keypress server")).length;
  const expected = (runs + 1) * servedRows + servedPaints.length + 1;
  if (status.served !== expected) throw new Error(`the keypress server served ${status.served} commands, not ${expected}`);
  const shellRows = contenders.filter((contender) => contender.name.startsWith("keypress server, shell client")).length;
  if (status.served_shell !== (runs + 1) * shellRows)
    throw new Error(`the shell client was served ${status.served_shell} commands, not ${(runs + 1) * shellRows}`);
  console.log(
    `\nThe keypress server served all ${status.served} of its commands, ${status.served_shell} of them to the shell client (pid ${status.pid}, ${Math.round(status.rss_bytes / 2 ** 20)} MiB resident).`,
  );
  const floor = stats(samples[0]).median;
  console.log(`\n| workflow (${runs} runs interleaved; picker ${paints.length} runs) | median | p90 | median vs \`node -e 0\` |`);
  console.log("|---|---|---|---|");
  contenders.forEach((contender, at) => {
    const row = stats(samples[at]);
    console.log(`| ${contender.name} | ${fmt(row.median)} | ${fmt(row.p90)} | ${(row.median / floor).toFixed(2)}x |`);
  });
  const paint = stats(paints);
  console.log(
    `| picker first screen in a pty (500 sessions) | ${fmt(paint.median)} | ${fmt(paint.p90)} | ${(paint.median / floor).toFixed(2)}x |`,
  );
  const servedPaint = stats(servedPaints);
  console.log(
    `| keypress server: picker first screen | ${fmt(servedPaint.median)} | ${fmt(servedPaint.p90)} | ${(servedPaint.median / floor).toFixed(2)}x |`,
  );
  if (baseline) {
    const before = stats(baselinePaints);
    console.log(
      `| baseline build: picker first screen | ${fmt(before.median)} | ${fmt(before.p90)} | ${(before.median / floor).toFixed(2)}x |`,
    );
  }
} finally {
  spawnSync(process.execPath, [CLI, "serve", "--stop"], { env: served, stdio: "ignore" });
  for (const socket of [outer, inner]) spawnSync("tmux", ["-S", socket, "kill-server"]);
  rmSync(temp, { recursive: true, force: true });
}
