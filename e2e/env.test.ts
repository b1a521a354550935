import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseExports, pingDocker, resolveContainerEnv } from "./env.ts";

const PRINTED =
  "export DOCKER_HOST=unix:///run/user/1001/podman/podman.sock\nexport TESTCONTAINERS_RYUK_DISABLED=true\nexport TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1\nexport TONGS_AGENTS_E2E_CACHE=/root/.cache/tongs-agents/e2e\n";

describe("the container environment", () => {
  it("parses what containers/podman.sh env prints", () => {
    expect(parseExports(`${PRINTED}noise\n`)).toEqual({
      DOCKER_HOST: "unix:///run/user/1001/podman/podman.sock",
      TESTCONTAINERS_RYUK_DISABLED: "true",
      TESTCONTAINERS_HOST_OVERRIDE: "127.0.0.1",
      TONGS_AGENTS_E2E_CACHE: "/root/.cache/tongs-agents/e2e",
    });
  });

  it("keeps variables already set and fills the rest from podman.sh", () => {
    const resolved = resolveContainerEnv({ DOCKER_HOST: "unix:///elsewhere.sock" }, () => PRINTED);
    expect(resolved).toMatchObject({ ok: true, value: { DOCKER_HOST: "unix:///elsewhere.sock", TESTCONTAINERS_RYUK_DISABLED: "true" } });
  });

  it("does not ask podman.sh when everything is set", () => {
    const env = {
      DOCKER_HOST: "unix:///a",
      TESTCONTAINERS_RYUK_DISABLED: "true",
      TESTCONTAINERS_HOST_OVERRIDE: "127.0.0.1",
      TONGS_AGENTS_E2E_CACHE: "/c",
    };
    expect(
      resolveContainerEnv(env, () => {
        throw new Error("not called");
      }),
    ).toEqual({ ok: true, value: env });
  });

  it("fails with the reason when podman.sh cannot tell, or Ryuk is left on", () => {
    expect(
      resolveContainerEnv({}, () => {
        throw new Error("user tongs-e2e does not exist");
      }),
    ).toMatchObject({ ok: false, detail: expect.stringContaining("podman.sh setup") });
    expect(resolveContainerEnv({ TESTCONTAINERS_RYUK_DISABLED: "false" }, () => PRINTED)).toMatchObject({
      ok: false,
      detail: expect.stringContaining("Ryuk"),
    });
  });
});

describe("pingDocker", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));
  const serve = async (status: number): Promise<string> => {
    const dir = mkdtempSync(join(tmpdir(), "ping-"));
    const socket = join(dir, "api.sock");
    const server: Server = createServer((req, res) => res.writeHead(req.url === "/_ping" ? status : 404).end("OK"));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    cleanups.push(() => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return `unix://${socket}`;
  };

  it("answers ok from a live socket, and says why otherwise", async () => {
    expect(await pingDocker(await serve(200))).toEqual({ ok: true, value: "OK" });
    expect(await pingDocker(await serve(500))).toMatchObject({ ok: false, detail: expect.stringContaining("HTTP 500") });
    expect(await pingDocker("unix:///nonexistent/api.sock")).toMatchObject({ ok: false, detail: expect.stringContaining("ENOENT") });
    expect(await pingDocker("tcp://127.0.0.1:2375")).toMatchObject({ ok: false, detail: expect.stringContaining("not a unix://") });
  });
});
