// npm run bench:kitty: kitty focus over the remote-control socket against the `kitty @` command line, side by side in
// one run (interleaved, so machine noise hits every contender alike). Starts its own Xvfb and kitty (stopped by PID),
// with two OS windows; every run moves the focus to the other one, so each figure is a real focus change.
// Prints a Markdown table; docs/benchmarks.md holds a copy with the machine it ran on.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseListenOn, sendCommand } from "../backends/kitty/rc.ts";
import { focusKitty } from "../backends/kitty/backend.ts";
import { run } from "../src/core/exec.ts";

const runs = Number(process.env.BENCH_RUNS ?? 30);
const temp = mkdtempSync(join(tmpdir(), "tongs-bench-kitty-"));
const env = { ...process.env, HOME: temp, XDG_CONFIG_HOME: join(temp, ".config"), XDG_CACHE_HOME: join(temp, ".cache") };
for (const name of ["KITTY_WINDOW_ID", "KITTY_LISTEN_ON", "WINDOWID", "TMUX", "TMUX_PANE"]) delete env[name];
const children = [];

function start(file, args, options = {}) {
  const child = spawn(file, args, { env, stdio: ["ignore", "ignore", "ignore", ...(options.fd ? ["pipe"] : [])], ...options.spawn });
  child.on("error", (error) => {
    console.error(`${file}: ${error.message} (install the packages in scripts/test-setup.sh)`);
    process.exit(1);
  });
  children.push(child);
  return child;
}

async function until(condition, what, timeoutMs = 30_000) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

async function main() {
  const xvfb = start("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp"], { fd: true });
  let display = "";
  xvfb.stdio[3].on("data", (chunk) => (display += String(chunk)));
  await until(() => display.includes("\n"), "Xvfb");
  env.DISPLAY = `:${display.trim()}`;
  const socket = join(temp, "kitty");
  const listenOn = `unix:${socket}`;
  start("kitty", ["--config", "NONE", "-o", "allow_remote_control=yes", "--listen-on", listenOn, "sleep", "100000"]);
  const address = parseListenOn(listenOn);
  await until(async () => (await sendCommand(address, "ls", undefined, 1000)).kind === "ok", "kitty's socket");
  const launched = await sendCommand(address, "launch", { args: ["sleep", "100000"], type: "os-window" });
  const windows = [1, Number(launched.data)];

  const context = {
    run,
    env,
    client: undefined,
    platform: process.platform,
    environOf: async () => undefined,
    raiseOuter: async () => ({ attempted: false, succeeded: false, detail: "" }),
  };
  let turn = 0;
  const next = () => windows[turn++ % 2];
  const timed = async (action) => {
    const started = process.hrtime.bigint();
    await action();
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const contenders = [
    {
      name: "socket: `focus-window --match id:N` (one round trip, no verification)",
      run: () =>
        timed(async () => {
          const reply = await sendCommand(address, "focus-window", { match: `id:${next()}` });
          if (reply.kind !== "ok") throw new Error(JSON.stringify(reply));
        }),
    },
    {
      name: "socket: `ls` (what one verification poll costs)",
      run: () =>
        timed(async () => {
          if ((await sendCommand(address, "ls")).kind !== "ok") throw new Error("ls failed");
        }),
    },
    {
      name: "kitty backend: ls + focus-window + verify until the OS window has the focus",
      run: () =>
        timed(async () => {
          const outcome = await focusKitty({ windowId: next(), listenOn, display: env.DISPLAY }, context);
          if (!outcome.selection.succeeded || !outcome.activation.succeeded) throw new Error(JSON.stringify(outcome));
        }),
    },
    {
      name: "`kitty @ --to SOCK focus-window --match id:N` (a process, Python client)",
      run: () =>
        timed(async () => {
          const result = spawnSync("kitty", ["@", "--to", listenOn, "focus-window", "--match", `id:${next()}`], { env });
          if (result.status !== 0) throw new Error(String(result.stderr));
        }),
    },
  ];
  const samples = contenders.map(() => []);
  for (const contender of contenders) await contender.run(); // warm up
  for (let index = 0; index < runs; index++) for (const [at, contender] of contenders.entries()) samples[at].push(await contender.run());

  const version = spawnSync("kitty", ["--version"], { encoding: "utf8" }).stdout.trim().split(" ").slice(0, 2).join(" ");
  console.log(
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${process.platform} ${process.arch}, Node ${process.version}; ${version} under Xvfb, no window manager; ${runs} runs each, interleaved.`,
  );
  console.log();
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  const floor = stats(samples[0]).median;
  console.log("| kitty focus | median | p90 | mean | median vs socket focus-window |");
  console.log("|---|---|---|---|---|");
  for (const [at, contender] of contenders.entries()) {
    const row = stats(samples[at]);
    console.log(`| ${contender.name} | ${fmt(row.median)} | ${fmt(row.p90)} | ${fmt(row.mean)} | ${(row.median / floor).toFixed(1)}x |`);
  }
}

try {
  await main();
} finally {
  for (const child of children.reverse()) if (child.pid && child.exitCode === null) process.kill(child.pid, "SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 300));
  rmSync(temp, { recursive: true, force: true });
}
