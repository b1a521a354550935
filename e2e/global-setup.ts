// Before any container suite: the API socket must answer, or the whole run fails with the reason (never a skip); then
// the one image every suite runs in is built or reused, once for the run (containers/recipe.ts, E2E_IMAGE): a suite
// asks for it by what it needs (e2e/containers.ts, requireImage) and gets its name, without packing the checkout again.
// After the run: any container this run left behind (a start that failed half-way, a crashed worker) is removed.
// Ryuk, testcontainers' own reaper, cannot run here (its image cannot be pulled).
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import type { ProvidedContext } from "vitest";
import type { TestProject } from "vitest/node";
import { buildImage } from "../containers/images.ts";
import { E2E_IMAGE } from "../containers/recipe.ts";
import { pingDocker, resolveContainerEnv, RUN_LABEL, type ContainerEnv } from "./env.ts";

declare module "vitest" {
  export interface ProvidedContext {
    containerEnv: ContainerEnv;
    e2eRunId: string;
    /** The image every suite runs in, or why it could not be built. */
    e2eImage: { ok: true; image: string } | { ok: false; detail: string };
  }
}

export async function setup(project: TestProject): Promise<() => void> {
  const env = resolveContainerEnv();
  if (!env.ok) throw new Error(`e2e: cannot find the container API: ${env.detail}`);
  const ping = await pingDocker(env.value.DOCKER_HOST);
  if (!ping.ok)
    throw new Error(
      `e2e: the container API at ${env.value.DOCKER_HOST} does not answer (${ping.detail}); start it with 'bash containers/podman.sh setup'`,
    );
  const runId = randomBytes(8).toString("hex");
  project.provide("containerEnv", env.value);
  project.provide("e2eRunId", runId);
  project.provide("e2eImage", await theImage(env.value));
  return () => removeLeftovers(env.value.DOCKER_HOST, runId);
}

/**
 * The image built or reused now, or the one scripts/test.sh built just before starting the suites beside the live files
 * (TONGS_AGENTS_E2E_IMAGE): building packs the checkout, and `npm pack` rewrites package.json for a moment, which a
 * live file running beside would see.
 */
async function theImage(env: ContainerEnv): Promise<ProvidedContext["e2eImage"]> {
  const given = process.env.TONGS_AGENTS_E2E_IMAGE;
  if (given) {
    try {
      podman(env.DOCKER_HOST, "image", "exists", given);
      return { ok: true, image: given };
    } catch {
      return { ok: false, detail: `TONGS_AGENTS_E2E_IMAGE names ${given}, which Podman does not have` };
    }
  }
  const built = await buildImage({
    ...E2E_IMAGE,
    env: { ...process.env, ...env },
    log: (line) => process.stderr.write(`e2e image: ${line}\n`),
  });
  return built.ok ? { ok: true, image: built.image } : { ok: false, detail: `${built.reason}: ${built.detail}` };
}

function podman(dockerHost: string, ...args: string[]): string {
  return execFileSync("podman", ["--remote", "--url", dockerHost, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function removeLeftovers(dockerHost: string, runId: string): void {
  const leftovers = podman(dockerHost, "ps", "--all", "--quiet", "--filter", `label=${RUN_LABEL}=${runId}`).split("\n").filter(Boolean);
  if (leftovers.length === 0) return;
  process.stderr.write(`e2e: removing ${leftovers.length} container(s) left by this run\n`);
  podman(dockerHost, "rm", "--force", "--time", "0", ...leftovers);
}
