// `--help` for every verb. Each verb module declares its help next to its code; one wrapper answers `--help` / `-h`
// before the verb parses its options, so no verb's option parser ever sees them (node:util's parseArgs would reject
// them as unknown options, with its own wording).
import { EXIT_CODES } from "../core/errors.ts";
import type { VerbSynopsis } from "./context.ts";
import type { Verb } from "./io.ts";

export interface VerbHelp extends VerbSynopsis {
  /** What the verb does, in a sentence or two. */
  readonly summary: string;
  /** Each option (or argument) with what it does. `-h, --help` is added. */
  readonly options?: readonly (readonly [string, string])[];
  /** Whole command lines, each a working example. */
  readonly examples: readonly string[];
}

export function formatHelp(help: VerbHelp): string {
  const options: (readonly [string, string])[] = [...(help.options ?? []), ["-h, --help", "show this help"]];
  const width = Math.max(...options.map(([name]) => name.length)) + 2;
  return [
    `Usage: tongs-agents ${help.usage}`,
    "",
    help.summary,
    "",
    "Options:",
    ...options.map(([name, what]) => `  ${name.padEnd(width)}${what}`),
    "",
    help.examples.length === 1 ? "Example:" : "Examples:",
    ...help.examples.map((example) => `  ${example}`),
  ].join("\n");
}

/** `--help` or `-h` before any `--` (after it, words belong to a command, e.g. `launch -- claude --help`). */
export function asksForHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

/** The verb, answering `--help` / `-h` with its help on stdout (exit 0) instead of running; its help rides along. */
export function withHelp(help: VerbHelp, verb: Verb): Verb & { readonly help: VerbHelp } {
  const helped: Verb = async (args, context, io) => {
    if (!asksForHelp(args)) return verb(args, context, io);
    io.stdout(formatHelp(help));
    return EXIT_CODES.ok;
  };
  return Object.assign(helped, { help });
}

/** The help a verb carries (completion reads its synopsis); undefined for one without. */
export function helpOf(verb: Verb): VerbHelp | undefined {
  return (verb as Verb & { readonly help?: VerbHelp }).help;
}
