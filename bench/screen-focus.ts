// How long the GNU screen backend takes to select and verify a window of a real, attached screen session:
// `node_modules/.bin/node bench/screen-focus.ts`. A private SCREENDIR and tmux socket in a temp dir; both stopped by
// name at the end. Prints the median and maximum, with user actions spaced 1.2 s apart (screen delays a query answer
// by `msgminwait`, 1 s, when its previous answer was shown less than that before a window switch), and back to back.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { screenBackend } from "../backends/screen/backend.ts";
import { run } from "../src/core/exec.ts";
import type { FocusContext } from "../backends/contract.ts";

const temp = mkdtempSync(join(tmpdir(), "tongs-bench-screen-"));
const env = { ...process.env, SCREENDIR: join(temp, "sockets") };
mkdirSync(env.SCREENDIR, { mode: 0o700 });
const outer = join(temp, "outer");
const runs = Number(process.env.BENCH_RUNS ?? 12);

try {
  execFileSync("screen", ["-dmS", "bench", "sh", "-c", "exec sleep 600"], { env });
  execFileSync("screen", ["-S", "bench", "-X", "screen", "1", "sh", "-c", "exec sleep 600"], { env });
  execFileSync("tmux", ["-S", outer, "new-session", "-d", "-x", "80", "-y", "20", "exec screen -r bench"], { env });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const sty = /(\d+\.bench)\s/.exec(execFileSync("screen", ["-ls", "bench"], { env, encoding: "utf8" }))?.[1];
  if (!sty) throw new Error("the bench session did not start");
  const context: FocusContext = {
    run: (file, args, options) => run(file, args, { ...options, env }),
    env: { STY: sty },
    client: undefined,
    platform: process.platform,
    environOf: async () => undefined,
    raiseOuter: async () => ({ attempted: false, succeeded: false, detail: "" }),
  };
  const version = execFileSync("screen", ["--version"], { encoding: "utf8" }).trim();
  process.stdout.write(`${version}; ${runs} focus calls each\n`);
  for (const gap of [1200, 0]) {
    const times: number[] = [];
    for (let index = 0; index < runs; index++) {
      await new Promise((resolve) => setTimeout(resolve, gap));
      const started = performance.now();
      const outcome = await screenBackend.focus({ sty, window: String(index % 2), serverPid: Number(sty.split(".")[0]) }, context);
      times.push(performance.now() - started);
      if (!outcome.selection.succeeded) throw new Error(`focus failed: ${JSON.stringify(outcome)}`);
    }
    times.sort((a, b) => a - b);
    process.stdout.write(
      `actions ${gap} ms apart: median ${times[Math.floor(runs / 2)]?.toFixed(1)} ms, max ${times.at(-1)?.toFixed(1)} ms\n`,
    );
  }
} finally {
  // Quitting the session ends its client, which ends the outer tmux server; kill-server covers a failed start.
  spawnSync("screen", ["-S", "bench", "-X", "quit"], { env, stdio: "ignore" });
  spawnSync("tmux", ["-S", outer, "kill-server"], { stdio: "ignore" });
  rmSync(temp, { recursive: true, force: true });
}
