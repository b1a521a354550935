// npm run bench (part): a fleet of agents on one machine (docs/benchmarks.md, "A fleet"). Stand-in agents named
// `claude` (bench/fleet-agent.mjs) each offer events at a fixed rate through the hook as the installer writes it, and
// wait for each hook as Claude Code does; meanwhile readers poll (`list`, the status segment through the shell client and
// the keypress server, the picker's first screen in a pseudo-terminal). The same load then runs with a bash+jq append
// hook (`jq -c . >> file`, what a minimal hook does), side by side in one run; with FLEET_CONTENDERS=tongs,jq,floor also
// a hook that only reads its input (`cat > /dev/null`: the floor any hook pays, a shell and one program per event). Printed per contender: offered, sent,
// applied, lost, duplicated, wrong finals, the hook's agent-visible p50/p99, the drain lag p50/p99 (event fired ->
// visible to readers), each reader's p99, and CPU per event of everything the hooks cause (the shims, their `head`, the
// drainer; or jq), measured in a cgroup of its own with the agents' own CPU taken out. Then one agent's bursts of 20,
// 200 and 2,000 events back to back: CPU per event should stay flat as the burst grows.
//
//   node bench/fleet.mjs                      30 agents x 10 events/s for 30 s, then the bursts
//   FLEET=50x20x60 node bench/fleet.mjs       50 agents x 20 events/s for 60 s
//   FLEET_BURSTS=20,200 FLEET_CONTENDERS=tongs node bench/fleet.mjs
//   FLEET_CONTENDERS=tongs,jq,floor node bench/fleet.mjs   the same load with a hook that does nothing but read
//   FLEET_SESSIONS=shared node bench/fleet.mjs  every agent and reader in the bench's own session (one scheduling group)
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpus, tmpdir } from "node:os";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pty from "@lydell/node-pty";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(root, "bin", "tongs-agents.js");
const SHIM = join(root, "bin", "tongs-agents-hook.sh");
const KEY = join(root, "bin", "tongs-agents-key.sh");
const AGENT = join(root, "bench", "fleet-agent.mjs");
const [agents, rate, seconds] = (process.env.FLEET ?? "30x10x30").split("x").map(Number);
const bursts = (process.env.FLEET_BURSTS ?? "20,200,2000").split(",").filter(Boolean).map(Number);
const contenders = (process.env.FLEET_CONTENDERS ?? "tongs,jq").split(",");
/** `each` (default): each agent and each reader in a session of its own; `shared`: all in the bench's session. */
const ownSessions = (process.env.FLEET_SESSIONS ?? "each") !== "shared";
const q = (word) => `'${word.replaceAll("'", "'\\''")}'`;

const temp = mkdtempSync(join(tmpdir(), "tongs-bench-fleet-"));
const claude = join(temp, "claude");
symlinkSync(process.execPath, claude);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- CPU of everything the agents start, in a cgroup of its own (v1 cpuacct or v2), as root ----
function makeCgroup(name) {
  const v2Root = existsSync("/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
  const kinds = [
    { base: "/sys/fs/cgroup/cpuacct", usageMs: (dir) => Number(readFileSync(join(dir, "cpuacct.usage"), "utf8")) / 1e6 },
    { base: v2Root, usageMs: (dir) => Number(/usage_usec (\d+)/.exec(readFileSync(join(dir, "cpu.stat"), "utf8"))?.[1]) / 1e3 },
  ];
  for (const { base, usageMs } of kinds) {
    const dir = join(base, name);
    try {
      mkdirSync(dir);
      usageMs(dir);
    } catch {
      rmCgroup(dir, 1);
      continue; // not root, or no such hierarchy here: try the next
    }
    return { add: (pid) => writeFileSync(join(dir, "cgroup.procs"), `${pid}\n`), usageMs: () => usageMs(dir), remove: () => rmCgroup(dir) };
  }
  return undefined;
}
function rmCgroup(dir, tries = 50) {
  for (let tried = 0; tried < tries && existsSync(dir); tried++) {
    try {
      rmdirSync(dir);
      return;
    } catch {
      spawnSync("sleep", ["0.1"]);
    }
  }
}

function quantile(samples, q) {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
const ms = (value) => (Number.isNaN(value) ? "n/a" : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`);

function contenderSetup(name) {
  const home = join(temp, name);
  const state = join(home, "state");
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const env = { ...process.env, HOME: home, TONGS_AGENTS_STATE_DIR: state, TONGS_AGENTS_NOTIFY: "off", TONGS_AGENTS_DISCOVERY: "off" };
  for (const key of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_DEBUG", "TONGS_AGENTS_SERVER"]) delete env[key];
  const kind = name.split("-")[0];
  const command = {
    tongs: `/bin/sh ${q(SHIM)} ${q(process.execPath)} {alias} --agent claude`,
    jq: `jq -c . >> ${q(join(home, "events.jsonl"))}`,
    floor: "cat > /dev/null",
  }[kind];
  return { kind, home, state, env, command };
}

/** Start the agents (in the cgroup before they send anything), run them, and collect their reports. */
async function runAgents(setup, cgroup, configs) {
  const startAt = Date.now() + 1500;
  const children = configs.map((config) => {
    // Each agent in a session of its own, as in a terminal of its own (a tmux pane, a terminal window): with Linux's
    // autogroup scheduling (sched_autogroup_enabled) a session is one scheduling group, and the agents' hooks then
    // share the CPU with the readers as they do on a desktop, not inside the bench's one group.
    const child = spawn(claude, [AGENT, JSON.stringify({ ...config, command: setup.command, startAt })], {
      env: setup.env,
      stdio: ["ignore", "pipe", "inherit"],
      detached: ownSessions,
    });
    cgroup?.add(child.pid);
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    return new Promise((resolve) => child.on("close", () => resolve(JSON.parse(out))));
  });
  return Promise.all(children);
}

function recordsOf(state) {
  const dir = join(state, "sessions");
  const records = new Map();
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
    try {
      const record = JSON.parse(readFileSync(join(dir, name), "utf8"));
      records.set(record.session_id, record);
    } catch {
      // being replaced: read again next time
    }
  }
  return records;
}
const queued = (state) => {
  const dir = join(state, "incoming");
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".ev")).length : 0;
};

/** Readers polling one after another until `stop()`: each one's latency. */
function startReaders(setup) {
  const latencies = { list: [], status: [], picker: [] };
  let running = true;
  const timeOne = (file, args) =>
    new Promise((resolve) => {
      const started = performance.now();
      // A session of its own, as a command typed in a terminal, or run by tmux for a status line (the picker's pty is one).
      const child = spawn(file, args, { env: setup.env, stdio: "ignore", detached: ownSessions });
      child.on("close", () => resolve(performance.now() - started));
    });
  const picker = () =>
    new Promise((resolve) => {
      const started = performance.now();
      const child = pty.spawn(process.execPath, [CLI, "pick"], { cols: 140, rows: 40, env: setup.env });
      let output = "";
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        const took = performance.now() - started;
        child.write("\u0003");
        setTimeout(() => {
          try {
            child.kill();
          } catch {
            // exited
          }
        }, 2000);
        resolve(took);
      };
      child.onData((data) => {
        output += data;
        if (output.includes("esc quit")) finish();
      });
      child.onExit(finish);
    });
  const loop = (async () => {
    while (running) {
      latencies.list.push(await timeOne(process.execPath, [CLI, "list", "--json"]));
      latencies.status.push(await timeOne("/bin/sh", [KEY, process.execPath, "status", "--format", "tmux"]));
      latencies.picker.push(await picker());
      await sleep(100);
    }
  })();
  return {
    latencies,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** When each record's applied count reached each value, from a watch on the sessions dir: visible to readers. */
function watchRecords(state) {
  const dir = join(state, "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const seen = new Map(); // session -> [time at which arrival_sequence reached k (index k-1)]
  const look = () => {
    const now = Date.now();
    for (const [session, record] of recordsOf(state)) {
      const times = seen.get(session) ?? [];
      while (times.length < record.arrival_sequence) times.push(now);
      seen.set(session, times);
    }
  };
  // Once per burst of changes (a write is a dozen directory events), not once per event: the bench's own CPU.
  let pending = false;
  const watcher = watch(dir, () => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      look();
    });
  });
  const timer = setInterval(look, 50);
  return {
    seen,
    stop: () => {
      watcher.close();
      clearInterval(timer);
      look();
    },
  };
}

/** Until every sent event is applied and nothing is queued (the jq append is done when its hook returns). */
async function drained(setup, reports, timeoutMs) {
  if (setup.kind !== "tongs") return 0;
  const started = Date.now();
  for (;;) {
    const records = recordsOf(setup.state);
    const done = reports.every((report) => (records.get(report.session)?.arrival_sequence ?? 0) >= report.sent);
    if ((done && queued(setup.state) === 0) || Date.now() - started > timeoutMs) return Date.now() - started;
    await sleep(50);
  }
}

function verdict(setup, reports) {
  if (setup.kind === "floor") return { applied: "n/a", lost: "n/a", duplicated: "n/a", wrong: "n/a" };
  if (setup.kind === "jq") {
    const lines = readFileSync(join(setup.home, "events.jsonl"), "utf8").trim().split("\n").filter(Boolean);
    const sent = reports.reduce((sum, report) => sum + report.sent, 0);
    return { applied: lines.length, lost: Math.max(0, sent - lines.length), duplicated: Math.max(0, lines.length - sent), wrong: 0 };
  }
  const records = recordsOf(setup.state);
  let applied = 0;
  let lost = 0;
  let duplicated = 0;
  let wrong = 0;
  for (const report of reports) {
    const record = records.get(report.session);
    const count = record?.arrival_sequence ?? 0;
    applied += count;
    lost += Math.max(0, report.sent - count);
    duplicated += Math.max(0, count - report.sent);
    if (record?.status !== "idle" || record?.last_event !== "claude.stop") wrong++;
  }
  return { applied, lost, duplicated, wrong };
}

function stopServer(setup) {
  spawnSync(process.execPath, [CLI, "serve", "--stop"], { env: setup.env, stdio: "ignore" });
}
function stopDrainer(setup) {
  try {
    const [pid] = readFileSync(join(setup.state, "drainer.pid"), "utf8").trim().split(" ");
    process.kill(Number(pid), "SIGKILL");
  } catch {
    // none running
  }
}

const LABELS = { tongs: "tongs-agents shim + drainer", jq: "`jq -c . >> file`", floor: "`cat > /dev/null` (reads, keeps nothing)" };
const BURST_LABELS = { tongs: "tongs-agents", jq: "jq append", floor: "cat > /dev/null" };

const lines = [];
const print = (text = "") => {
  lines.push(text);
  console.log(text);
};

print(
  `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${process.platform} ${process.arch}, Node ${process.version}; ` +
    `load average at the start ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}.`,
);
print();
print(
  `### ${agents} agents x ${rate} events/s for ${seconds} s, readers polling (${ownSessions ? "each agent and reader in a session of its own" : "all in one session"})`,
);
print();
print(
  "| hook | offered | sent | applied | lost | duplicated | wrong final | hook p50 | hook p99 | drain lag p50 | drain lag p99 | drained after | list p99 | status p99 | picker p99 | CPU per event |",
);
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const name of contenders) {
  const setup = contenderSetup(name);
  if (name === "jq" && spawnSync("jq", ["--version"]).status !== 0) {
    print("| jq | (jq is not installed) |");
    continue;
  }
  execFileSync(process.execPath, [CLI, "serve", "--detach"], { env: setup.env, stdio: "ignore" });
  const cgroup = makeCgroup(`tongs-bench-${process.pid}-${name}`);
  const before = cgroup?.usageMs() ?? 0;
  const readers = startReaders(setup);
  const records = name === "tongs" ? watchRecords(setup.state) : undefined;
  const configs = Array.from({ length: agents }, (_, index) => ({ mode: "load", session: `agent-${index}`, rate, seconds }));
  const reports = await runAgents(setup, cgroup, configs);
  const drainMs = await drained(setup, reports, 300_000);
  await readers.stop();
  records?.stop();
  const cpuMs = cgroup ? cgroup.usageMs() - before - reports.reduce((sum, report) => sum + report.selfCpuMs, 0) : NaN;
  const sent = reports.reduce((sum, report) => sum + report.sent, 0);
  const offered = reports.reduce((sum, report) => sum + report.offered, 0);
  const walls = reports.flatMap((report) => report.walls);
  const lags = [];
  for (const report of reports) {
    const visible = records?.seen.get(report.session) ?? [];
    report.fired.forEach((at, k) => visible[k] !== undefined && lags.push(visible[k] - at));
  }
  const v = verdict(setup, reports);
  const l = readers.latencies;
  print(
    `| ${LABELS[name]} | ${offered} | ${sent} | ${v.applied} | ${v.lost} | ${v.duplicated} | ${v.wrong} | ${ms(quantile(walls, 0.5))} | ${ms(quantile(walls, 0.99))} | ${name === "tongs" ? ms(quantile(lags, 0.5)) : "n/a"} | ${name === "tongs" ? ms(quantile(lags, 0.99)) : "n/a"} | ${ms(drainMs)} | ${ms(quantile(l.list, 0.99))} | ${ms(quantile(l.status, 0.99))} | ${ms(quantile(l.picker, 0.99))} | ${ms(cpuMs / sent)} |`,
  );
  stopServer(setup);
  stopDrainer(setup);
  cgroup?.remove();
}
print();
print("### One agent's bursts, back to back (CPU per event, hook and drainer together)");
print();
print(`| burst | ${contenders.map((name) => BURST_LABELS[name]).join(" | ")} |`);
print(`|---|${contenders.map(() => "---").join("|")}|`);
for (const count of bursts) {
  const cells = [];
  for (const name of contenders) {
    const setup = contenderSetup(`${name}-burst-${count}`);
    if (name === "jq" && spawnSync("jq", ["--version"]).status !== 0) {
      cells.push("n/a");
      continue;
    }
    const cgroup = makeCgroup(`tongs-bench-${process.pid}-${name}-${count}`);
    const before = cgroup?.usageMs() ?? 0;
    const reports = await runAgents(setup, cgroup, [{ mode: "burst", session: "burst", count }]);
    await drained(setup, reports, 300_000);
    const cpuMs = cgroup ? cgroup.usageMs() - before - reports[0].selfCpuMs : NaN;
    const v = verdict(setup, reports);
    cells.push(
      `${ms(cpuMs / count)}${setup.kind !== "floor" && v.lost + v.duplicated + v.wrong > 0 ? ` (lost ${v.lost}, dup ${v.duplicated}, wrong ${v.wrong})` : ""}`,
    );
    stopDrainer(setup);
    cgroup?.remove();
  }
  print(`| ${count} events | ${cells.join(" | ")} |`);
}
print();
print(`Load average at the end: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}.`);
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${lines.join("\n")}\n`);
rmSync(temp, { recursive: true, force: true });
