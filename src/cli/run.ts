// The CLI: find the verb, load its module (lazily: `status` and `pick` must start fast, so nothing else is loaded
// for them), run it. Verbs return exit codes; only this layer and main.ts touch the process.
import { EXIT_CODES } from "../errors.ts";
import { resolveStateDir } from "../paths.ts";
import { defaultProcessSource } from "../proc.ts";
import type { CliContext } from "./context.ts";
import { fail, type CliIo, type Verb } from "./io.ts";
import { USAGE } from "./usage.ts";

export type { CliIo } from "./io.ts";

const VERBS: Record<string, () => Promise<Verb>> = {
  list: async () => (await import("./list.ts")).listVerb,
  show: async () => (await import("./show.ts")).showVerb,
  focus: async () => (await import("./focus.ts")).focusVerb,
  prune: async () => (await import("./prune.ts")).pruneVerb,
  mcp: async () => (await import("./mcp.ts")).mcpVerb,
  pick: async () => (await import("./pick.ts")).pickVerb,
  next: async () => (await import("./next.ts")).nextVerb,
  status: async () => (await import("./status.ts")).statusVerb,
  popup: async () => (await import("./popup.ts")).popupVerb,
  launch: async () => (await import("./launch.ts")).launchVerb,
  demo: async () => (await import("./demo.ts")).demoVerb,
  "tmux-setup": async () => (await import("./tmux-setup.ts")).tmuxSetupVerb,
  notify: async () => (await import("./notify.ts")).notifyVerb,
  install: async () => (await import("./install.ts")).installVerb,
  uninstall: async () => (await import("./install.ts")).uninstallVerb,
  doctor: async () => (await import("./install.ts")).doctorVerb,
  help: async () => async (_args, _context, io) => {
    io.stdout(USAGE);
    return EXIT_CODES.ok;
  },
};

/** `TONGS_AGENTS_DISCOVERY=off` turns process discovery off: only sessions with records are listed (the demo does). */
export const DISCOVERY_ENV = "TONGS_AGENTS_DISCOVERY";

export function defaultContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  const context: CliContext = { env, stateDir: resolveStateDir(env), processes: defaultProcessSource(), now: Date.now() };
  return env[DISCOVERY_ENV] === "off" ? { ...context, listProcesses: async () => [] } : context;
}

export async function runCli(argv: readonly string[], context: CliContext, io: CliIo): Promise<number> {
  const [verb = "help", ...rest] = argv;
  const name = verb === "--help" || verb === "-h" ? "help" : verb;
  const load = Object.hasOwn(VERBS, name) ? VERBS[name] : undefined;
  if (!load) return fail({ ok: false, reason: "usage", detail: `unknown command ${JSON.stringify(verb)}` }, io, false);
  return (await load())(rest, context, io);
}
