// What a CLI verb may use of the world, injected so tests need no global patching.
import type { Clock } from "../core/clock.ts";
import { defaultProcessSource } from "../core/proc.ts";
import type { Runner } from "../core/exec.ts";
import type { FleetContext } from "../fleet/queries.ts";
import type { HostsContext } from "../hosts/everywhere.ts";
import type { InstallContext } from "../install/context.ts";
import { resolveStateDir } from "../store/paths.ts";
import { notifyOnChange } from "../hook/notify-trigger.ts";

/** Where a verb prints, and the terminal a full-screen verb draws on. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly color: boolean;
  readonly columns: number;
  /** The caller's home directory, shown as `~` (the keypress server's client's); default: this process's. */
  readonly home?: string;
  /** The terminal a full-screen verb draws on, when not this process's own (the keypress server's caller's). */
  readonly terminal?: { readonly input: NodeJS.ReadStream; readonly output: NodeJS.WriteStream; readonly hangup?: AbortSignal };
}

/** What completion needs of a verb's help (help.ts VerbHelp): its synopsis and the words that pick what it does. */
export interface VerbSynopsis {
  /** The synopsis after `tongs-agents `, e.g. `list [--json] [--all]`: its options and their values are read from it. */
  readonly usage: string;
  /** The words its first argument may be (`hosts list|add|remove`), each with the words its second may be. */
  readonly subcommands?: Readonly<Record<string, readonly string[]>>;
}

export interface CliContext extends FleetContext, Pick<HostsContext, "sshRun" | "hostTimeoutMs"> {
  readonly env: NodeJS.ProcessEnv;
  /** The caller's working directory (the keypress server's client's, not the server's). */
  readonly cwd: string;
  readonly now: Clock;
  /**
   * How programs the verbs start are run (the focus backends' tmux, kitty or wezterm, the picker's preview): the
   * keypress server's resident shell (src/core/shell-runner.ts); Node's spawn by default.
   */
  readonly run?: Runner;
  /** The installer's world (Node, package root, exec); defaults to this process's. */
  readonly install?: InstallContext;
  /** The dispatcher that runs this verb (run.ts sets it), for a verb that runs others: the keypress server. */
  readonly dispatch?: (argv: readonly string[], context: CliContext, io: CliIo) => Promise<number>;
  /** Every verb's name, and the synopsis of one (run.ts sets them), for shell completion. */
  readonly verbs?: { readonly names: readonly string[]; readonly synopsis: (verb: string) => Promise<VerbSynopsis | undefined> };
}

/** `TONGS_AGENTS_DISCOVERY=off` turns process discovery off: only sessions with records are listed (the demo does). */
export const DISCOVERY_ENV = "TONGS_AGENTS_DISCOVERY";

export function defaultContext(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): CliContext {
  const stateDir = resolveStateDir(env);
  const context: CliContext = {
    env,
    cwd,
    stateDir,
    processes: defaultProcessSource(),
    now: Date.now,
    // A turn outcome a harness stated in its files (Codex's usage limit) notifies like one its hook reported.
    onStated: (applied, sessionsDir) => void notifyOnChange(applied, sessionsDir, { stateDir, env }),
  };
  return env[DISCOVERY_ENV] === "off" ? { ...context, listProcesses: async () => [] } : context;
}
