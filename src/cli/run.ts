// The CLI: find the verb, load its module (lazily: `status` and `pick` must start fast, so nothing else is loaded
// for them), run it. Verbs return exit codes; only this layer and main.ts touch the process.
import { EXIT_CODES, type Failure } from "../core/errors.ts";
import { BUILD, VERSION } from "../core/version.ts";
import type { CliContext, VerbSynopsis } from "./context.ts";
import { asksForHelp, helpOf } from "./help.ts";
import { fail, verbIo, type CliIo, type Verb } from "./io.ts";
import { USAGE } from "./usage.ts";
import { quoted } from "../core/terminal-text.ts";
import { didYouMean } from "../core/suggest.ts";
import { takeColorOption } from "./color.ts";

export type { CliIo } from "./io.ts";

// Each verb and the module it lives in are declared in verbs.json too: the build bundles each module apart, and a test
// keeps the two in step.
export const VERBS: Record<string, () => Promise<Verb>> = {
  list: async () => (await import("./list.ts")).listVerb,
  show: async () => (await import("./show.ts")).showVerb,
  explain: async () => (await import("./explain.ts")).explainVerb,
  focus: async () => (await import("./focus.ts")).focusVerb,
  answer: async () => (await import("./answer.ts")).answerVerb,
  prune: async () => (await import("./prune.ts")).pruneVerb,
  mcp: async () => (await import("./mcp.ts")).mcpVerb,
  pick: async () => (await import("./pick.ts")).pickVerb,
  next: async () => (await import("./next.ts")).nextVerb,
  wait: async () => (await import("./wait.ts")).waitVerb,
  status: async () => (await import("./status.ts")).statusVerb,
  popup: async () => (await import("./popup.ts")).popupVerb,
  launch: async () => (await import("./launch.ts")).launchVerb,
  demo: async () => (await import("./demo.ts")).demoVerb,
  "tmux-setup": async () => (await import("./tmux-setup.ts")).tmuxSetupVerb,
  notify: async () => (await import("./notify.ts")).notifyVerb,
  hosts: async () => (await import("./hosts.ts")).hostsVerb,
  install: async () => (await import("./install.ts")).installVerb,
  uninstall: async () => (await import("./install.ts")).uninstallVerb,
  doctor: async () => (await import("./install.ts")).doctorVerb,
  serve: async () => (await import("./serve.ts")).serveVerb,
  completion: async () => (await import("./completion.ts")).completionVerb,
  // `help <verb>` is that verb's --help.
  help: async () => async (args, context, io) => {
    const [about] = args;
    if (about === undefined || about === "help" || asksForHelp(args)) {
      io.stdout(USAGE);
      return EXIT_CODES.ok;
    }
    const load = Object.hasOwn(VERBS, about) ? VERBS[about] : undefined;
    if (!load) return fail(unknownCommand(about), io, false);
    return (await load())(["--help"], context, io);
  },
};

/** Every verb, for the tests that hold each to answering --help. */
export const VERB_NAMES: readonly string[] = Object.keys(VERBS);

function unknownCommand(word: string): Failure {
  const hint = didYouMean(word, VERB_NAMES);
  return { ok: false, reason: "usage", detail: `unknown command ${quoted(word)}${hint === "" ? " (tongs-agents help lists them)" : hint}` };
}

/**
 * Run one command line; whatever it prints reaches `sink` through the one writer (io.ts `verbIo`). `--color=always|
 * never|auto`, anywhere before `--`, is taken out here, for every verb: auto keeps what the entry point found (a
 * terminal, and no NO_COLOR).
 */
export async function runCli(argv: readonly string[], context: CliContext, sink: CliIo): Promise<number> {
  const color = takeColorOption(argv);
  if (!color.ok) return fail(color, verbIo(sink), false);
  const io = verbIo(color.mode === "auto" ? sink : { ...sink, color: color.mode === "always" });
  const [verb = "help", ...rest] = color.argv;
  if (verb === "--version") {
    io.stdout(`tongs-agents ${VERSION} (build ${BUILD})`);
    return EXIT_CODES.ok;
  }
  const name = verb === "--help" || verb === "-h" ? "help" : verb;
  const load = Object.hasOwn(VERBS, name) ? VERBS[name] : undefined;
  if (!load) return fail(unknownCommand(verb), io, false);
  // A verb that runs others (the keypress server) runs them through this dispatcher, handed in: no verb imports it;
  // completion reads the verbs' synopses the same way.
  return (await load())(rest, { ...context, dispatch: runCli, verbs: { names: VERB_NAMES, synopsis: synopsisOf } }, io);
}

async function synopsisOf(verb: string): Promise<VerbSynopsis | undefined> {
  const load = Object.hasOwn(VERBS, verb) && verb !== "help" ? VERBS[verb] : undefined;
  return load ? helpOf(await load()) : undefined;
}
