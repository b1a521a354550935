// Before any container suite: the API socket must answer, or the whole run fails with the reason (never a skip); then
// the one image every suite runs in is built or reused, once for the run (containers/recipe.ts, E2E_IMAGE): a suite
// asks for it by what it needs (e2e/containers.ts, requireImage) and gets its name, without packing the checkout again.
// After the run: any container this run left behind (a start that failed half-way, a crashed worker) is removed.
// Ryuk, testcontainers' own reaper, cannot run here (its image cannot be pulled).
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
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
  const built = await buildImage({
    ...E2E_IMAGE,
    env: { ...process.env, ...env.value },
    log: (line) => process.stderr.write(`e2e image: ${line}\n`),
  });
  project.provide("e2eImage", built.ok ? { ok: true, image: built.image } : { ok: false, detail: `${built.reason}: ${built.detail}` });
  return () => removeLeftovers(env.value.DOCKER_HOST, runId);
}

function removeLeftovers(dockerHost: string, runId: string): void {
  const podman = (...args: string[]) =>
    execFileSync("podman", ["--remote", "--url", dockerHost, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const leftovers = podman("ps", "--all", "--quiet", "--filter", `label=${RUN_LABEL}=${runId}`).split("\n").filter(Boolean);
  if (leftovers.length === 0) return;
  process.stderr.write(`e2e: removing ${leftovers.length} container(s) left by this run\n`);
  podman("rm", "--force", "--time", "0", ...leftovers);
}
