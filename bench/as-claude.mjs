// Benchmarks of the hook run it from a process named `claude`, so its ancestry walk finds its harness at the first
// step, as under Claude Code: the script re-runs itself through a symlink named `claude` (its comm is then exactly
// "claude") in a temp dir that is removed afterwards.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** In the re-run: the temp dir. Otherwise re-runs `scriptUrl` as `claude` and exits with its status. */
export function runAsClaude(scriptUrl, prefix) {
  if (process.env.TONGS_BENCH_AS_CLAUDE === "1") return process.env.TONGS_BENCH_TEMP;
  const temp = mkdtempSync(join(tmpdir(), prefix));
  const claude = join(temp, "claude");
  symlinkSync(process.execPath, claude);
  const result = spawnSync(claude, [fileURLToPath(scriptUrl)], {
    stdio: "inherit",
    env: { ...process.env, TONGS_BENCH_AS_CLAUDE: "1", TONGS_BENCH_TEMP: temp },
  });
  rmSync(temp, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}
