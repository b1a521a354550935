// What a CLI verb may use of the world, injected so tests need no global patching.
import type { ListProcesses } from "../fleet/discovery.ts";
import type { InstallWorld } from "../install/world.ts";
import type { ProcessSource } from "../core/proc.ts";

export interface CliContext {
  readonly env: NodeJS.ProcessEnv;
  readonly stateDir: string;
  readonly processes: ProcessSource;
  readonly listProcesses?: ListProcesses;
  readonly now: number;
  /** The installer's world (Node, package root, exec); defaults to this process's. */
  readonly installWorld?: InstallWorld;
}
