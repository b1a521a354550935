// What the installer may use of the world, injected so tests run against temp dirs and fake or real programs.
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { run, type Runner } from "../core/exec.ts";
import { defaultHookMode, type HookMode } from "./command.ts";

export interface InstallContext {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  /** The Node that runs the hooks: the one running the installer. */
  readonly nodePath: string;
  readonly nodeVersion: string;
  /** The installed tongs-agents package (holds bin/, dist/, pi-bridge/). */
  readonly packageRoot: string;
  /** Runs the harnesses' own CLIs (`claude mcp add`, `pi install`, `--version`). */
  readonly exec: Runner;
  /** How harnesses run the hook (`install --hook`); the platform's default when absent (command.ts). */
  readonly hookMode?: HookMode;
}

export interface OurPaths {
  readonly node: string;
  readonly hook: string;
  readonly cli: string;
  readonly hookMode: HookMode;
}

export function ourPaths(world: InstallContext): OurPaths {
  return {
    node: world.nodePath,
    hook: join(world.packageRoot, "bin", "tongs-agents-hook.cjs"),
    cli: join(world.packageRoot, "bin", "tongs-agents.js"),
    hookMode: world.hookMode ?? defaultHookMode(),
  };
}

/** The nearest directory above `start` whose package.json names tongs-agents (works from src/ and from dist/). */
export function findPackageRoot(start: string = import.meta.dirname): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "tongs-agents") return dir;
      } catch {
        // not ours; keep looking
      }
    }
    if (dirname(dir) === dir) throw new Error(`no tongs-agents package.json above ${start}`);
  }
}

/** The first executable `name` on the PATH of `env`, like `command -v`. */
export function which(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function defaultInstallContext(env: NodeJS.ProcessEnv = process.env): InstallContext {
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
  return { env, home, nodePath: process.execPath, nodeVersion: process.versions.node, packageRoot: findPackageRoot(), exec: run };
}
