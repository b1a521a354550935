// What notifications cost the hook (docs/benchmarks.md, "Notifications"): the same build with the notifier on and off
// (TONGS_AGENTS_NOTIFY), interleaved. An event that leaves the state as it was (prompt-submit) must cost the same; an
// event that changes the state into waiting starts the detached notifier. Each state-changing event is followed by a
// pause, so the notifier of one run has finished before the next run (on two cores it would otherwise compete).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const HOOK = join(root, "bin", "tongs-agents-hook.cjs");
const runs = Number(process.env.BENCH_RUNS ?? 30);

// The hook finds its harness by ancestry: run this script as a process named `claude` (see bench/run.mjs).
if (process.env.TONGS_BENCH_AS_CLAUDE !== "1") {
  const temp = mkdtempSync(join(tmpdir(), "tongs-bench-notify-"));
  symlinkSync(process.execPath, join(temp, "claude"));
  const result = spawnSync(join(temp, "claude"), [fileURLToPath(import.meta.url)], {
    stdio: "inherit",
    env: { ...process.env, TONGS_BENCH_AS_CLAUDE: "1", TONGS_BENCH_TEMP: temp },
  });
  rmSync(temp, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}

const temp = process.env.TONGS_BENCH_TEMP;
const base = { ...process.env, HOME: temp, XDG_CONFIG_HOME: join(temp, "config") };
for (const name of ["TMUX", "TMUX_PANE", "DBUS_SESSION_BUS_ADDRESS", "TONGS_AGENTS_DEBUG"]) delete base[name];
const envOf = (notify) => ({ ...base, TONGS_AGENTS_STATE_DIR: join(temp, `state-${notify}`), TONGS_AGENTS_NOTIFY: notify });
const hook = (alias, notify, session) => {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [HOOK, alias, "--agent", "claude"], {
    input: JSON.stringify({ session_id: session, cwd: "/w/bench", tool_name: "Bash" }),
    env: envOf(notify),
  });
  if (result.status !== 0) throw new Error(`hook ${alias} exited ${result.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
};
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const p90 = (list) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * 0.9))];

for (const notify of ["on", "off"]) for (const session of ["same", "change"]) hook("session-start", notify, session);
const samples = { same: { on: [], off: [] }, change: { on: [], off: [] } };
for (let index = 0; index < runs; index++) {
  for (const notify of index % 2 === 0 ? ["on", "off"] : ["off", "on"]) {
    samples.same[notify].push(hook("prompt-submit", notify, "same"));
    hook("tool-done", notify, "change");
    samples.change[notify].push(hook("permission-request", notify, "change"));
    pause(1500);
  }
}
const fmt = (ms) => `${ms.toFixed(1)} ms`;
console.log(`Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}; ${runs} runs each, interleaved.\n`);
console.log("| hook event | notifier on: median | p90 | off: median | p90 | on/off (medians) |");
console.log("|---|---|---|---|---|---|");
for (const [key, label] of [
  ["same", "prompt-submit (state unchanged: no notifier)"],
  ["change", "permission-request (state -> waiting: starts the notifier)"],
]) {
  const { on, off } = samples[key];
  console.log(
    `| ${label} | ${fmt(median(on))} | ${fmt(p90(on))} | ${fmt(median(off))} | ${fmt(p90(off))} | ${(median(on) / median(off)).toFixed(2)}x |`,
  );
}
