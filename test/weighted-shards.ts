// How `vitest --shard` splits the live files (scripts/test.sh runs two shards, each in a PID namespace of its own, beside
// the container suites): by how long each file takes, not by a hash of its path, so the shards end together. Greedy:
// the longest file first, each onto the shard with the least so far; every shard computes the same split. The seconds
// are each file's wall time in a fresh-clone CI run with the shards beside the container suites and then the
// adversarial project (the "slowest files" table it prints; refresh them from a CI log when files are added or change
// a lot; a file that failed keeps its last time). A file not listed counts 30 s.
// Other projects are not sharded: their order is vitest's own.
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const SECONDS: Readonly<Record<string, number>> = {
  "test/live/answer-keys.test.ts": 5,
  "test/live/answer.test.ts": 180,
  "test/live/claude-hold.test.ts": 75,
  "test/live/claude-waits.test.ts": 14,
  "test/live/claude.test.ts": 15,
  "test/live/cline.test.ts": 90,
  "test/live/codex.test.ts": 11,
  "test/live/completion.test.ts": 18,
  "test/live/copilot-interactive.test.ts": 66,
  "test/live/copilot.test.ts": 25,
  "test/live/declared-agent.test.ts": 11,
  "test/live/demo.test.ts": 39,
  "test/live/kimi.test.ts": 54,
  "test/live/kitty-focus.test.ts": 114,
  "test/live/launch.test.ts": 2,
  "test/live/limits.test.ts": 70,
  "test/live/list-watch.test.ts": 3,
  "test/live/mcp-registration.test.ts": 68,
  "test/live/next-status.test.ts": 6,
  "test/live/node-cli.test.ts": 78,
  "test/live/notify-answer.test.ts": 16,
  "test/live/notify-desktop.test.ts": 60,
  "test/live/notify-kitty.test.ts": 24,
  "test/live/opencode.test.ts": 145,
  "test/live/outer-terminals-mocked.test.ts": 8,
  "test/live/pi-install.test.ts": 7,
  "test/live/pi.test.ts": 158,
  "test/live/picker.test.ts": 28,
  "test/live/screen-focus.test.ts": 13,
  "test/live/server.test.ts": 82,
  "test/live/show.test.ts": 1,
  "test/live/status-refresh.test.ts": 6,
  "test/live/tmux-focus.test.ts": 22,
  "test/live/tmux-plugin.test.ts": 17,
  "test/live/tmux-setup.test.ts": 14,
  "test/live/x11-focus.test.ts": 38,
};
const UNLISTED_SECONDS = 30;

export class WeightedShards extends BaseSequencer {
  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { root, shard } = this.ctx.config;
    if (!shard) return files;
    const seconds = (file: TestSpecification) => SECONDS[relative(root, file.moduleId)] ?? UNLISTED_SECONDS;
    const loads = Array.from({ length: shard.count }, () => 0);
    const mine: TestSpecification[] = [];
    const longestFirst = [...files].sort((a, b) => seconds(b) - seconds(a) || a.moduleId.localeCompare(b.moduleId));
    for (const file of longestFirst) {
      const lightest = loads.indexOf(Math.min(...loads));
      loads[lightest] = (loads[lightest] ?? 0) + seconds(file);
      if (lightest === shard.index - 1) mine.push(file);
    }
    return mine;
  }
}
