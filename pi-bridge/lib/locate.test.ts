import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { HOOK_FILE, SHIM_FILE, locateHook, locateNode, moduleDirectory, shimBeside } from "./locate.js";

let sandbox: Sandbox;
let root: string;
beforeEach(() => {
  sandbox = makeSandbox();
  root = sandbox.root;
});
afterEach(() => sandbox.cleanup());

/** An installed tongs-agents package: <dir>/pi-bridge/ beside <dir>/bin/tongs-agents-hook.cjs. */
function installedPackage(dir: string) {
  mkdirSync(join(dir, "pi-bridge"), { recursive: true });
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "bin", HOOK_FILE), "");
  return { bridgeDir: join(dir, "pi-bridge"), hook: join(dir, "bin", HOOK_FILE) };
}

describe("locateHook", () => {
  it("finds the hook beside the bridge, as loaded in place by `pi install <dir>`", () => {
    const { bridgeDir, hook } = installedPackage(join(root, "lib", "node_modules", "tongs-agents"));
    expect(locateHook({ env: {}, bridgeDir })).toEqual({ ok: true, path: hook, source: "package" });
  });

  it("follows a symlinked bridge directory to the package it belongs to", () => {
    const { bridgeDir, hook } = installedPackage(join(root, "real"));
    const link = join(root, "linked-bridge");
    symlinkSync(bridgeDir, link);
    expect(locateHook({ env: {}, bridgeDir: link })).toEqual({ ok: true, path: hook, source: "package" });
  });

  it("prefers TONGS_AGENTS_HOOK, and reports a bad one instead of guessing", () => {
    const { bridgeDir } = installedPackage(join(root, "pkg"));
    const other = join(root, "other-hook.cjs");
    writeFileSync(other, "");
    expect(locateHook({ env: { TONGS_AGENTS_HOOK: other }, bridgeDir })).toEqual({ ok: true, path: other, source: "env" });
    expect(locateHook({ env: { TONGS_AGENTS_HOOK: "relative/hook.cjs" }, bridgeDir })).toMatchObject({
      ok: false,
      reason: "TONGS_AGENTS_HOOK is not an absolute path",
    });
    expect(locateHook({ env: { TONGS_AGENTS_HOOK: join(root, "missing.cjs") }, bridgeDir })).toMatchObject({
      ok: false,
      reason: "TONGS_AGENTS_HOOK is not a file",
    });
  });

  it("falls back to tongs-agents-hook on PATH (npm's bin link) for a copied bridge", () => {
    const { hook } = installedPackage(join(root, "global", "lib", "node_modules", "tongs-agents"));
    const binDir = join(root, "global", "bin");
    mkdirSync(binDir, { recursive: true });
    symlinkSync(hook, join(binDir, "tongs-agents-hook"));
    const copied = join(root, "copied-bridge");
    mkdirSync(copied);
    expect(locateHook({ env: { PATH: ["relative", "/nonexistent", binDir].join(":") }, bridgeDir: copied })).toEqual({
      ok: true,
      path: hook,
      source: "path",
    });
  });

  it("does not take a non-script tongs-agents-hook from PATH, and says when nothing is found", () => {
    const binDir = join(root, "bin");
    mkdirSync(binDir);
    writeFileSync(join(binDir, "tongs-agents-hook"), "#!/bin/sh\n");
    expect(locateHook({ env: { PATH: binDir }, bridgeDir: join(root, "nowhere") })).toMatchObject({ ok: false });
    expect(locateHook({ env: {}, bridgeDir: undefined })).toMatchObject({ ok: false });
  });
});

describe("shimBeside", () => {
  it("is the package's hook shim beside the hook, and none where the package has none", () => {
    const { hook } = installedPackage(join(root, "pkg"));
    expect(shimBeside(hook)).toBeUndefined();
    writeFileSync(join(root, "pkg", "bin", SHIM_FILE), "");
    expect(shimBeside(hook)).toBe(join(root, "pkg", "bin", SHIM_FILE));
  });
});

describe("locateNode", () => {
  it("uses Pi's own Node.js, or node from PATH when Pi is not running on Node", () => {
    const binDir = join(root, "bin");
    mkdirSync(binDir);
    writeFileSync(join(binDir, "node"), "");
    expect(locateNode({ env: {}, execPath: "/opt/node/bin/node", versions: { node: "22.23.3" } })).toBe("/opt/node/bin/node");
    expect(
      locateNode({ env: { PATH: `/nonexistent:${binDir}` }, execPath: "/opt/pi/pi", versions: { node: "24.3.0", bun: "1.3.0" } }),
    ).toBe(join(binDir, "node"));
    expect(locateNode({ env: { PATH: "/nonexistent" }, execPath: "/opt/pi/pi", versions: { bun: "1.3.0" } })).toBeUndefined();
    expect(locateNode({ env: { TONGS_AGENTS_NODE: join(binDir, "node") }, execPath: "/x", versions: { node: "22" } })).toBe(
      join(binDir, "node"),
    );
    expect(locateNode({ env: { TONGS_AGENTS_NODE: "node" }, execPath: "/x", versions: { node: "22" } })).toBeUndefined();
  });
});

describe("moduleDirectory", () => {
  it("turns a module's file URL into its directory", () => {
    const file = join(root, "dir with space", "index.js");
    mkdirSync(join(root, "dir with space"));
    writeFileSync(file, "");
    expect(moduleDirectory(pathToFileURL(file).href)).toBe(join(root, "dir with space"));
    expect(moduleDirectory("data:text/javascript,1")).toBeUndefined();
    expect(moduleDirectory(undefined)).toBeUndefined();
  });
});
