// The environment the container suites need, and a check that the container API answers before any suite starts.
import { execFileSync } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dirname, "..");

/** What testcontainers and the image builder read (containers/podman.sh env prints the same). */
export const CONTAINER_ENV_KEYS = [
  "DOCKER_HOST",
  "TESTCONTAINERS_RYUK_DISABLED",
  "TESTCONTAINERS_HOST_OVERRIDE",
  "TONGS_AGENTS_E2E_CACHE",
] as const;
/** Every container an e2e run starts carries this label with the run's id; the run's teardown removes leftovers. */
export const RUN_LABEL = "org.tongs-agents.e2e-run";

export type ContainerEnv = Record<(typeof CONTAINER_ENV_KEYS)[number], string>;

export type Resolved<T> = { ok: true; value: T } | { ok: false; detail: string };

/** Parse `export KEY=VALUE` lines (values here never need quoting). */
export function parseExports(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^export ([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) values[match[1] as string] = match[2] as string;
  }
  return values;
}

/**
 * Variables already set win (CI or a contributor may point elsewhere); the rest come from `containers/podman.sh env`,
 * so `npm run test:e2e` works in a plain shell once `containers/podman.sh setup` has run.
 */
export function resolveContainerEnv(
  env: NodeJS.ProcessEnv = process.env,
  podmanEnv: () => string = defaultPodmanEnv,
): Resolved<ContainerEnv> {
  let printed: Record<string, string> = {};
  if (CONTAINER_ENV_KEYS.some((key) => !env[key])) {
    try {
      printed = parseExports(podmanEnv());
    } catch (error) {
      return {
        ok: false,
        detail: `containers/podman.sh env failed (${String((error as Error).message).trim()}); run 'bash containers/podman.sh setup' as root first`,
      };
    }
  }
  const value = {} as ContainerEnv;
  for (const key of CONTAINER_ENV_KEYS) {
    const found = env[key] || printed[key];
    if (!found) return { ok: false, detail: `${key} is not set and containers/podman.sh env did not print it` };
    value[key] = found;
  }
  if (value.TESTCONTAINERS_RYUK_DISABLED !== "true")
    return { ok: false, detail: "TESTCONTAINERS_RYUK_DISABLED must be true: the Ryuk image cannot be pulled here" };
  return { ok: true, value };
}

function defaultPodmanEnv(): string {
  return execFileSync("bash", [join(REPO_ROOT, "containers", "podman.sh"), "env"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** GET /_ping on a unix:// Docker-compatible socket. */
export function pingDocker(dockerHost: string, timeoutMs = 10_000): Promise<Resolved<string>> {
  if (!dockerHost.startsWith("unix://")) return Promise.resolve({ ok: false, detail: `DOCKER_HOST ${dockerHost} is not a unix:// socket` });
  return new Promise((resolve) => {
    const req = request({ socketPath: dockerHost.slice("unix://".length), path: "/_ping", timeout: timeoutMs }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () =>
        resolve(
          res.statusCode === 200 ? { ok: true, value: body } : { ok: false, detail: `HTTP ${res.statusCode}: ${body.slice(0, 200)}` },
        ),
      );
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (error) => resolve({ ok: false, detail: error.message }));
    req.end();
  });
}
