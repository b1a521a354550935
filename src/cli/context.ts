// What a CLI verb may use of the world, injected so tests need no global patching.
import type { Clock } from "../core/clock.ts";
import type { Runner } from "../core/exec.ts";
import type { FleetContext } from "../fleet/queries.ts";
import type { HostsContext } from "../hosts/everywhere.ts";
import type { InstallContext } from "../install/context.ts";

export interface CliContext extends FleetContext, Pick<HostsContext, "sshRun" | "hostTimeoutMs"> {
  readonly env: NodeJS.ProcessEnv;
  readonly now: Clock;
  /**
   * How programs the verbs start are run (the focus backends' tmux, kitty or wezterm, the picker's preview): the
   * keypress server's resident shell (src/core/shell-runner.ts); Node's spawn by default.
   */
  readonly run?: Runner;
  /** The installer's world (Node, package root, exec); defaults to this process's. */
  readonly install?: InstallContext;
}
