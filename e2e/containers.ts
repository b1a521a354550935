// Containers for the e2e suites: the image from containers/ (built or reused), started through testcontainers, with
// the fixture programs copied in. Callers stop what they start (`await using`, or afterAll).
import { join } from "node:path";
import { GenericContainer, type StartedNetwork, type StartedTestContainer } from "testcontainers";
import { inject } from "vitest";
import { E2E_IMAGE, type AgentId, type ExtraId } from "../containers/recipe.ts";
import { RUN_LABEL } from "./env.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
/** Where the fixture programs live inside a container. */
export const E2E_DIR = "/opt/e2e";

/**
 * The image, built or reused: the one image every suite runs in (containers/recipe.ts, E2E_IMAGE), which holds the
 * agents and extras a suite names here; a suite that cannot have it fails with the builder's reason.
 */
export async function requireImage({
  agents = [],
  extras = [],
}: { agents?: readonly AgentId[]; extras?: readonly ExtraId[] } = {}): Promise<string> {
  const missing = [...agents.filter((id) => !E2E_IMAGE.agents.includes(id)), ...extras.filter((id) => !E2E_IMAGE.extras.includes(id))];
  if (missing.length > 0) throw new Error(`e2e: the image has no ${missing.join(", ")} (containers/recipe.ts, E2E_IMAGE)`);
  // Built once for the run by the global setup (e2e/global-setup.ts).
  const built = inject("e2eImage");
  if (!built.ok) throw new Error(`e2e: cannot build the image: ${built.detail}`);
  return built.image;
}

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Box extends AsyncDisposable {
  readonly container: StartedTestContainer;
  /** Run argv inside the container (no shell involved). */
  exec(argv: readonly string[], env?: Record<string, string>): Promise<Run>;
  /** `sh -c script sh args...`, failing loudly on a non-zero exit. */
  sh(script: string, ...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export interface BoxOptions {
  /**
   * "none" (the default) gives the container only a loopback interface: nothing here needs more, and it skips the
   * rootless network namespace (slirp4netns, netavark, iptables) altogether. "bridge" when a suite needs a network;
   * a started network (testcontainers `Network`) when containers must reach each other, by the `aliases` given.
   */
  readonly network?: "none" | "bridge" | StartedNetwork;
  readonly aliases?: readonly string[];
}

export async function startBox(image: string, { network = "none", aliases = [] }: BoxOptions = {}): Promise<Box> {
  const base = new GenericContainer(image);
  const networked = typeof network === "string" ? base.withNetworkMode(network) : base.withNetwork(network).withNetworkAliases(...aliases);
  const container = await networked
    .withLabels({ [RUN_LABEL]: inject("e2eRunId") })
    .withCopyFilesToContainer(
      ["harness.mjs", "harness-client.mjs"].map((name) => ({ source: join(FIXTURES, name), target: `${E2E_DIR}/${name}` })),
    )
    .start();
  let stopped = false;
  const box: Box = {
    container,
    async exec(argv, env) {
      const result = await container.exec([...argv], env ? { env } : {});
      return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    },
    async sh(script, ...args) {
      const result = await box.exec(["sh", "-c", script, "sh", ...args]);
      if (result.code !== 0)
        throw new Error(`in container: sh -c ${JSON.stringify(script)} exited ${result.code}: ${result.stderr || result.stdout}`);
      return result.stdout;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await container.stop();
    },
    [Symbol.asyncDispose]: () => box.stop(),
  };
  return box;
}

/** The hook's debug log in a container (root's default state dir), where agents run with TONGS_AGENTS_DEBUG=1. */
export const HOOK_LOG = "/root/.local/state/tongs-agents/hook.log";

/**
 * The debug log's JSON lines, older first; none where there is no log. Past its size bound the log is rotated to
 * `<path>.1` (src/hook/debug-log.ts), so a long suite reads both.
 */
export async function hookLogLines(box: Box, path = HOOK_LOG): Promise<Record<string, unknown>[]> {
  return jsonLines((await box.exec(["sh", "-c", 'cat "$1.1" "$1" 2>/dev/null; true', "sh", path])).stdout);
}

/** One JSON value per non-empty line. */
export const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
