// Listing a state dir that kept many sessions, few of them live (docs/benchmarks.md, "Listing 10,000 records"): 10,000
// records, 50 of them of live processes (sleep stand-ins with their real start tokens, a quarter of them ended), the
// rest of processes long gone. Each listing is timed in turn with `node -e 0`, in pairs; printed: the median wall and
// the median of the pair ratios. Rows: no drainer running (every record file read), the drainer running (its sessions
// index, then only the live records' files), the same without process discovery (what reading the process table adds),
// and `list --json --all` (every record printed).
//
//   node bench/list-many.mjs                   10,000 records, 10 pairs per row
//   LIST_RECORDS=1000 LIST_PAIRS=20 node bench/list-many.mjs
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { seedRecords } from "./many-records.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(root, "bin", "tongs-agents.js");
const DRAINER = join(root, "bin", "tongs-agents-drainer.cjs");
const count = Number(process.env.LIST_RECORDS ?? 10_000);
const pairs = Number(process.env.LIST_PAIRS ?? 10);
const temp = mkdtempSync(join(tmpdir(), "tongs-bench-list-"));
const state = join(temp, "state");
const sessions = join(state, "sessions");

const standIns = Array.from({ length: 50 }, () => spawn("sleep", ["3600"], { stdio: "ignore" }));
seedRecords(sessions, count, standIns);

const env = { ...process.env, HOME: temp, TONGS_AGENTS_STATE_DIR: state, TONGS_AGENTS_SERVER: "off" };
delete env.TONGS_AGENTS_DISCOVERY;
function timeOnce(args, extra = {}) {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { env: { ...env, ...extra }, stdio: "ignore" });
  if (run.status !== 0) throw new Error(`${args.join(" ")} exited ${run.status}`);
  return performance.now() - started;
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = [];
function measure(name, args, extra) {
  timeOnce(args, extra); // once unmeasured: the validated-record cache as a listing leaves it
  const walls = [];
  const ratios = [];
  for (let pair = 0; pair < pairs; pair++) {
    const floor = timeOnce(["-e", "0"]);
    const wall = timeOnce(args, extra);
    walls.push(wall);
    ratios.push(wall / floor);
  }
  rows.push(`| ${name} | ${median(walls).toFixed(0)} ms | ${median(ratios).toFixed(2)}x |`);
}

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; load average at the start ${load()}.`);
console.log();
measure("`list`, no drainer running: every record file read", [CLI, "list"]);
const drainer = spawn(process.execPath, [DRAINER, state], { env, stdio: "ignore" });
// The drainer keeps the sessions index once the dir has been quiet for its racy window (2 s) and its sweep came.
for (let waited = 0; !existsSync(join(state, "sessions-index.json")) || !existsSync(join(state, "validated-records.json")); waited += 100) {
  if (waited > 60_000) throw new Error("the drainer wrote no sessions index within 60 s");
  await new Promise((resolve) => setTimeout(resolve, 100));
}
measure("`list`, drainer running: its sessions index, then only the live records' files", [CLI, "list"]);
measure("the same, process discovery off (`TONGS_AGENTS_DISCOVERY=off`)", [CLI, "list"], { TONGS_AGENTS_DISCOVERY: "off" });
measure("`list --json --all`, drainer running (every record printed)", [CLI, "list", "--json", "--all"]);
drainer.kill("SIGKILL");
for (const standIn of standIns) standIn.kill();
console.log(`| ${count.toLocaleString("en")} records, 50 live (${pairs} pairs) | wall, median | vs \`node -e 0\`, paired |`);
console.log("|---|---|---|");
for (const row of rows) console.log(row);
console.log();
console.log(`Load average at the end: ${load()}.`);
rmSync(temp, { recursive: true, force: true });
