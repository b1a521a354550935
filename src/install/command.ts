// The hook command line written into harness configs: absolute paths (the Node that ran the installer, the installed
// hook script), quoted for `sh -c` so paths with spaces, quotes or `$` survive every POSIX shell.
import { dirname, join } from "node:path";
import { shellCommand } from "../core/shell-quote.ts";

export interface HookCommandParts {
  /** Absolute path of the Node binary that runs the hook (>= 22). */
  readonly node: string;
  /** Absolute path of bin/tongs-agents-hook.cjs. */
  readonly hook: string;
  readonly alias: string;
  readonly agent: string;
}

export function hookCommandLine({ node, hook, alias, agent }: HookCommandParts): string {
  return shellCommand([node, hook, alias, "--agent", agent]);
}

/**
 * How a harness runs the hook (docs/contract.md, "The hook shim"): `shim` is `/bin/sh bin/tongs-agents-hook.sh`, which
 * queues the event and returns while the one resident drainer applies it (hook/drainer.ts); `sync` is Node running the
 * whole hook while the agent waits. The shim needs /proc (Linux); elsewhere it hands the event to the synchronous hook itself.
 */
export type HookMode = "shim" | "sync";
export const HOOK_MODES: readonly HookMode[] = ["shim", "sync"];
export const SHIM_SCRIPT = "tongs-agents-hook.sh";
/** The shell that runs the shim: named, not looked up, so the harness's PATH and login shell do not matter. */
export const SHIM_SHELL = "/bin/sh";

export function defaultHookMode(platform: NodeJS.Platform = process.platform): HookMode {
  return platform === "linux" ? "shim" : "sync";
}

/**
 * THE hook command every installer writes (one per harness event): `<node> <hook.cjs> <alias> --agent <id>` for
 * `sync`, `/bin/sh <bin>/tongs-agents-hook.sh <node> <alias> --agent <id>` for `shim` (the shim sits beside `hook`).
 */
export function hookCommand(parts: HookCommandParts & { readonly mode: HookMode }): string {
  if (parts.mode === "sync") return hookCommandLine(parts);
  const shim = join(dirname(parts.hook), SHIM_SCRIPT);
  return shellCommand([SHIM_SHELL, shim, parts.node, parts.alias, "--agent", parts.agent]);
}
