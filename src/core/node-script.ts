// Identity of harnesses that run as `node <script>` (Gemini CLI, Qwen Code): their process name is only `node`, so the
// exact evidence is the script node runs, resolved the way node resolved it (relative to the process's working
// directory, symlinks such as node_modules/.bin followed), compared by its path ending in node_modules/<package>/<file>.
// A name appearing anywhere else among the arguments never counts.
import { realpathSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";

/** A harness's scripts, each as the path suffix `node_modules/<package>/<file>` its package installs. */
export type NodeScripts = readonly string[];

export interface ScriptWorld {
  /** Resolves a path the way the kernel does (symlinks followed); throws when it cannot. */
  readonly realpath?: (path: string) => string;
  readonly procRoot?: string;
}

/**
 * The script a node process runs: the first argument after node's own options. Options that take a separate value
 * (`-r mod`, `--require mod`) are not modelled: the value would be taken for the script, which then matches nothing,
 * so such a process goes unidentified rather than misidentified.
 */
export function nodeScriptArg(argv: readonly string[]): string | undefined {
  const [node, ...rest] = argv;
  if (node === undefined || !/^node(js)?(\d+)?(\.exe)?$/.test(basename(node))) return undefined;
  return rest.find((arg) => !arg.startsWith("-"));
}

/** Does process `pid` with arguments `argv` run one of `scripts`? Relative scripts resolve against its /proc cwd. */
export function runsNodeScript(pid: number, argv: readonly string[], scripts: NodeScripts, world: ScriptWorld = {}): boolean {
  if (scripts.length === 0) return false;
  const script = nodeScriptArg(argv);
  if (script === undefined) return false;
  const { realpath = realpathSync, procRoot = "/proc" } = world;
  let resolved: string;
  try {
    resolved = realpath(isAbsolute(script) ? script : join(procRoot, String(pid), "cwd", script));
  } catch {
    return false;
  }
  return scripts.some((suffix) => resolved.endsWith(`/${suffix}`));
}
