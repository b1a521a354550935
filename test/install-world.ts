// Installer test worlds: a sandboxed HOME, a stand-in tongs-agents package root (a recording hook script, the CLI
// path, a Pi bridge stand-in) and PATH holding only the programs a test puts there.
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../src/core/exec.ts";
import type { InstallContext } from "../src/install/context.ts";
import type { Sandbox } from "./sandbox.ts";

/** A package root with a hook script that records its arguments (to $HOOK_RECORD) instead of doing hook work. */
export function makePackageRoot(dir: string): string {
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "tongs-agents", version: "0.0.0-test" }));
  writeFileSync(
    join(dir, "bin", "tongs-agents-hook.cjs"),
    'require("node:fs").appendFileSync(process.env.HOOK_RECORD, JSON.stringify(process.argv.slice(2)) + "\\n");\n',
  );
  // Stand-in for the hook shim: takes the Node path first, as the real one does, and runs the stand-in hook with it.
  writeFileSync(join(dir, "bin", "tongs-agents-hook.sh"), 'node=$1\nshift\nexec "$node" "${0%/*}/tongs-agents-hook.cjs" "$@"\n');
  writeFileSync(join(dir, "bin", "tongs-agents.js"), "// stand-in CLI\n");
  // Stand-in for the Pi bridge another part of the project builds: a Pi package with one no-op extension.
  mkdirSync(join(dir, "pi-bridge", "extensions"), { recursive: true });
  writeFileSync(
    join(dir, "pi-bridge", "package.json"),
    JSON.stringify({
      name: "tongs-agents-pi-bridge-standin",
      private: true,
      type: "module",
      keywords: ["pi-package"],
      pi: { extensions: ["./extensions/standin.js"] },
    }),
  );
  writeFileSync(join(dir, "pi-bridge", "extensions", "standin.js"), "export default function () {}\n");
  // Stand-in for the OpenCode plugin module the installed plugin file imports.
  mkdirSync(join(dir, "opencode-plugin"), { recursive: true });
  writeFileSync(join(dir, "opencode-plugin", "index.js"), "export const createPlugin = () => async () => ({});\n");
  return dir;
}

/** A directory to put on PATH, with `node` linked to this Node (hooks need one) and the given programs. */
export function makeBinDir(dir: string, programs: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true });
  symlinkSync(process.execPath, join(dir, "node"));
  for (const [name, source] of Object.entries(programs)) {
    writeFileSync(join(dir, name), source);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

export function makeWorld(
  sandbox: Sandbox,
  { packageRoot, nodePath = process.execPath, path = [] }: { packageRoot: string; nodePath?: string; path?: readonly string[] },
): InstallContext {
  return {
    env: { ...sandbox.env, PATH: [...path, "/usr/bin", "/bin"].join(":") },
    home: sandbox.home,
    nodePath,
    nodeVersion: process.versions.node,
    packageRoot,
    exec: run,
  };
}

export const readText = (path: string): string => readFileSync(path, "utf8");
