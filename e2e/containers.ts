// Containers for the e2e suites: the image from containers/ (built or reused), started through testcontainers, with
// the fixture programs copied in. Callers stop what they start (`await using`, or afterAll).
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { GenericContainer, getContainerRuntimeClient, type StartedNetwork, type StartedTestContainer } from "testcontainers";
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
      ["harness.mjs", "harness-client.mjs", "box-runner.mjs"].map((name) => ({
        source: join(FIXTURES, name),
        target: `${E2E_DIR}/${name}`,
      })),
    )
    .start();
  const runner = await openRunner(container);
  let stopped = false;
  const box: Box = {
    container,
    async exec(argv, env) {
      if (runner.open) return await runner.run(argv, env);
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
      runner.close();
      await container.stop();
    },
    [Symbol.asyncDispose]: () => box.stop(),
  };
  return box;
}

interface Runner {
  readonly open: boolean;
  run(argv: readonly string[], env?: Record<string, string>): Promise<Run>;
  close(): void;
}

/**
 * One exec session for the box's whole life, running fixtures/box-runner.mjs: each command is a JSON line to it and
 * one back, not an exec of its own (an exec costs about 0.15 CPU-s: Podman's API service, runc, and the cleanup
 * process conmon starts after each exec session; a suite looks into its container a few times a second). Should the
 * session end, commands in flight fail (they may have run: never sent twice) and later ones go through plain execs.
 */
async function openRunner(container: StartedTestContainer): Promise<Runner> {
  const dockerode = (await getContainerRuntimeClient()).container.dockerode;
  const exec = await dockerode
    .getContainer(container.getId())
    .exec({ Cmd: ["node", `${E2E_DIR}/box-runner.mjs`], AttachStdin: true, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: true });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  dockerode.modem.demuxStream(stream, stdout, stderr);
  const waiting = new Map<number, { resolve: (run: Run) => void; reject: (error: Error) => void }>();
  let open = true;
  let next = 0;
  const end = (why: string) => {
    if (!open) return;
    open = false;
    for (const { reject } of waiting.values())
      reject(new Error(`e2e: the box's command session ended (${why}) with this command in flight`));
    waiting.clear();
  };
  createInterface({ input: stdout }).on("line", (line) => {
    const { id, code, stdout: out, stderr: err } = JSON.parse(line) as Run & { id: number };
    waiting.get(id)?.resolve({ code, stdout: out, stderr: err });
    waiting.delete(id);
  });
  stderr.on("data", (chunk: Buffer) => process.stderr.write(`e2e box-runner: ${chunk.toString()}`));
  stream.on("end", () => end("its stream ended"));
  stream.on("error", (error: Error) => end(error.message));
  return {
    get open() {
      return open;
    },
    run: (argv, env) =>
      new Promise<Run>((resolve, reject) => {
        const id = ++next;
        waiting.set(id, { resolve, reject });
        stream.write(`${JSON.stringify({ id, argv, env })}\n`);
      }),
    close() {
      end("the box stopped");
      stream.end();
    },
  };
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
