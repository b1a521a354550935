import { configDefaults, defineConfig } from "vitest/config";
import { TimingReporter } from "./test/timing-reporter.ts";
import { WeightedShards } from "./test/weighted-shards.ts";

// Hermetic by construction: test/setup.ts points HOME, XDG dirs and every harness config dir into a temp dir before
// any test runs; test/global-setup.ts builds the bundles the process-level tests execute.
// The e2e project runs in containers (rootless Podman, images from containers/): `npm run test:e2e`, docs/containers.md.
export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    // The run ends with each project's and each file's wall time (test/timing-reporter.ts).
    reporters: ["default", new TimingReporter()],
    setupFiles: ["test/setup.ts"],
    // `--shard` splits files by how long each takes (the live project's two shards in scripts/test.sh).
    sequence: { sequencer: WeightedShards },
    restoreMocks: true,
    unstubEnvs: true,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [
            "src/**/*.test.ts",
            "backends/**/*.test.ts",
            "pi-bridge/**/*.test.ts",
            "opencode-plugin/**/*.test.ts",
            "test/*.test.ts",
            "containers/**/*.test.ts",
            "e2e/**/*.test.ts",
          ],
          exclude: [...configDefaults.exclude, "e2e/**/*.e2e.test.ts"],
          testTimeout: 20_000,
          // Both cores (vitest's default is one worker fewer than the cores: one here). The process-level tests bound
          // hangs, not speed, so they hold beside another file (docs/containers.md, "Where CI's time goes").
          maxWorkers: 2,
          // Each worker runs its files in one module graph instead of a fresh one per file: importing and transforming
          // every file's modules again cost the project 27 s of its 235 s of file time and about a third of its CPU
          // (157 s at 74 % busy isolated, 121 s at 65 % not; 2026-12-07). The files restore what they change (mocks and
          // stubbed env by the settings above, cwd and TZ themselves); runs with the file order shuffled
          // (--sequence.shuffle.files, two seeds) passed too.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The project's own attacks on itself (docs/reliability.md): fuzzed hostile payloads, concurrent writers, kill -9,
        // file system faults, racing edits. One file at a time (they load both cores on purpose), in a run of its own after
        // the container suites (scripts/test.sh), or after the unit project when one run holds both.
        extends: true,
        test: {
          name: "adversarial",
          include: ["test/adversarial/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Real terminal programs on this machine (tmux, kitty under Xvfb, GNU screen) and real agent CLIs (installed once
        // into ~/.cache/tongs-agents/, driven against the synthetic provider in e2e/provider).
        extends: true,
        // Never beside the unit project (real programs' start-up load would skew its concurrency tests): scripts/test.sh
        // runs it in two shards of its own, after the unit project.
        test: {
          name: "live",
          include: ["test/live/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["e2e/**/*.e2e.test.ts"],
          globalSetup: ["e2e/global-setup.ts"],
          setupFiles: ["e2e/setup.ts"],
          // The first run builds the image (about two minutes from a bare machine); each suite also sets its own.
          testTimeout: 120_000,
          hookTimeout: 900_000,
          // Each look of an expect.poll is a `podman exec` (about 0.15 CPU-s): 500 ms apart, not vitest's 50 (the suites'
          // own waits look more often at first and less later: e2e/poll.ts).
          expect: { poll: { interval: 500 } },
          // Two container suites side by side (vitest's default is one worker fewer than the cores: one here). They wait
          // for states with bounded polls, so they hold under each other's load (docs/containers.md).
          maxWorkers: 2,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
