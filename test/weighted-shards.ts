// How `vitest --shard` splits the live files (scripts/test.sh runs two shards, each in a PID namespace of its own, beside
// the container suites): by how long each file takes, not by a hash of its path, so the shards end together. Greedy:
// the longest file first, each onto the shard with the least so far; every shard computes the same split. The seconds
// are each file's wall time in a fresh-clone CI run with the shards beside the container suites (the "slowest files"
// table it prints; refresh them from a CI log when files are added or change a lot). A file not listed counts 30 s.
// Other projects are not sharded: their order is vitest's own.
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const SECONDS: Readonly<Record<string, number>> = {
  "test/live/answer-keys.test.ts": 6,
  "test/live/answer.test.ts": 187,
  "test/live/claude-waits.test.ts": 13,
  "test/live/claude.test.ts": 8,
  "test/live/cline.test.ts": 119,
  "test/live/codex.test.ts": 15,
  "test/live/completion.test.ts": 7,
  "test/live/copilot-interactive.test.ts": 48,
  "test/live/copilot.test.ts": 8,
  "test/live/declared-agent.test.ts": 11,
  "test/live/demo.test.ts": 27,
  "test/live/kimi.test.ts": 33,
  "test/live/kitty-focus.test.ts": 75,
  "test/live/launch.test.ts": 3,
  "test/live/limits.test.ts": 84,
  "test/live/list-watch.test.ts": 4,
  "test/live/mcp-registration.test.ts": 31,
  "test/live/next-status.test.ts": 2,
  "test/live/node-cli.test.ts": 119,
  "test/live/notify-answer.test.ts": 13,
  "test/live/notify-desktop.test.ts": 44,
  "test/live/notify-kitty.test.ts": 18,
  "test/live/opencode.test.ts": 138,
  "test/live/outer-terminals-mocked.test.ts": 5,
  "test/live/pi-install.test.ts": 7,
  "test/live/pi.test.ts": 141,
  "test/live/picker.test.ts": 7,
  "test/live/screen-focus.test.ts": 9,
  "test/live/server.test.ts": 76,
  "test/live/show.test.ts": 1,
  "test/live/status-refresh.test.ts": 2,
  "test/live/tmux-focus.test.ts": 28,
  "test/live/tmux-plugin.test.ts": 2,
  "test/live/tmux-setup.test.ts": 6,
  "test/live/x11-focus.test.ts": 11,
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
