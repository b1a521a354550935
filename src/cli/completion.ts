// `tongs-agents completion bash|zsh|fish`: a completion script for the shell, and the one routine every script calls
// back on Tab (`completion --complete INDEX -- WORDS...`), so the three shells complete alike: verbs, each verb's options
// and their values (read from the verb's own synopsis, the one `--help` prints), subcommands, harness ids, and the
// short ids of the live sessions where a verb takes a session. README "Completion" has the line for each rc file.
import { EXIT_CODES } from "../core/errors.ts";
import { quoted } from "../core/terminal-text.ts";
import { didYouMean } from "../core/suggest.ts";
import { loadFleet } from "../fleet/sessions.ts";
import { COLOR_MODES } from "./color.ts";
import type { CliContext, VerbSynopsis } from "./context.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type Verb } from "./io.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

const COMPLETION_HELP: VerbHelp = {
  usage: "completion bash|zsh|fish",
  summary:
    'Print the completion script for a shell: verbs, options and their values, harness names and the ids of live\nsessions. Load it from your shell\'s rc file (README, "Completion"):\n  bash: eval "$(tongs-agents completion bash)"      zsh: eval "$(tongs-agents completion zsh)"\n  fish: tongs-agents completion fish | source',
  options: [["bash|zsh|fish", "the shell"]],
  examples: ["tongs-agents completion bash", "tongs-agents completion fish > ~/.config/fish/completions/tongs-agents.fish"],
  subcommands: { bash: [], zsh: [], fish: [] },
};

/** Options every verb takes (run.ts, help.ts). */
const GLOBAL_FLAGS = ["--help", "--color"];

/** `--flag a|b|c` in a synopsis: the flag's values. */
function flagValues(usage: string, flag: string): string[] | undefined {
  if (flag === "--color") return [...COLOR_MODES];
  const match = new RegExp(`${flag}[ =]([a-z][a-z0-9-]*(?:\\|[a-z][a-z0-9-]*)+)`).exec(usage);
  return match?.[1]?.split("|");
}

/** Does the flag take a value (`--client <tty>`, `--timeout SECONDS`, `--format a|b`)? */
function takesValue(usage: string, flag: string): boolean {
  return flag === "--color" || new RegExp(`${flag}[ =](?:<|[A-Z]|[a-z][a-z0-9-]*\\|)`).test(usage);
}

/**
 * The candidates for the word at `index` of `words` (words[0] is the command), as the shell split the line: bash splits
 * `--color=al` into `--color`, `=`, `al`. Only candidates that start with what is typed.
 */
export async function completeWords(words: readonly string[], index: number, context: CliContext): Promise<string[]> {
  const verbs = context.verbs;
  if (!verbs) return [];
  let current = words[index] ?? "";
  let previous = words[index - 1] ?? "";
  if (current === "=") current = "";
  if (previous === "=") previous = words[index - 2] ?? "";
  const starting = (list: readonly string[]) => [...new Set(list)].filter((word) => word.startsWith(current));
  // The verb is the first word that is no option (`--color never`, `--color=never` and bash's `--color = never` may come first).
  let at = 1;
  while (at < index && (words[at]?.startsWith("-") || words[at] === "=" || words[at - 1] === "=" || words[at - 1] === "--color")) at++;
  if (previous === "--color") return starting(COLOR_MODES);
  if (index <= at) return starting(current.startsWith("-") ? ["--help", "--version", "--color"] : verbs.names);
  const verbAt = at;
  const verb = words[verbAt] ?? "";
  if (verb === "help") return index === verbAt + 1 ? starting(verbs.names) : [];
  const synopsis: VerbSynopsis | undefined = await verbs.synopsis(verb);
  if (!synopsis) return [];
  const { usage } = synopsis;
  if (previous.startsWith("--") && takesValue(usage, previous)) return starting(flagValues(usage, previous) ?? []);
  if (current.startsWith("-")) return starting([...(usage.match(/--[a-z][a-z0-9-]*/g) ?? []), ...GLOBAL_FLAGS]);
  // The arguments before this word, without options and their values.
  const positionals: string[] = [];
  for (let word = verbAt + 1; word < index; word++) {
    const text = words[word] as string;
    if (text === "=" || words[word - 1] === "=") continue;
    if (text.startsWith("-")) {
      if (!text.includes("=") && words[word + 1] !== "=" && takesValue(usage, text)) word++;
      continue;
    }
    positionals.push(text);
  }
  const subcommands = synopsis.subcommands;
  if (subcommands) {
    const [first, second] = positionals;
    if (first === undefined) return starting(Object.keys(subcommands));
    if (second === undefined && positionals.length === 1) return starting(subcommands[first] ?? []);
    return [];
  }
  if (usage.includes("<query>") && positionals.length === 0) return starting(await sessionIds(context));
  return [];
}

/** Short ids of the sessions on this machine that are not ended (records only: a Tab must not wait for `ps`). */
async function sessionIds(context: CliContext): Promise<string[]> {
  const fleet = await loadFleet(context, { discover: false });
  return fleet.sessions.filter((session) => session.status !== "ended").map((session) => session.short_id);
}

/** The script that makes `shell` call `--complete` on Tab. */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case "bash":
      return `# tongs-agents completion for bash: eval "$(tongs-agents completion bash)" in ~/.bashrc
_tongs_agents_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(tongs-agents completion --complete "$COMP_CWORD" -- "\${COMP_WORDS[@]}" 2>/dev/null))
}
complete -o default -F _tongs_agents_complete tongs-agents`;
    case "zsh":
      return `# tongs-agents completion for zsh: eval "$(tongs-agents completion zsh)" in ~/.zshrc
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit }
_tongs_agents_complete() {
  local -a candidates
  candidates=("\${(@f)$(tongs-agents completion --complete $((CURRENT - 1)) -- "\${words[@]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _tongs_agents_complete tongs-agents`;
    case "fish":
      return `# tongs-agents completion for fish: tongs-agents completion fish | source (in config.fish)
function __tongs_agents_complete
    set -l words (commandline -opc)
    tongs-agents completion --complete (count $words) -- $words (commandline -ct) 2>/dev/null
end
complete -c tongs-agents -f -a '(__tongs_agents_complete)'`;
  }
}

export const completionVerb: Verb = withHelp(COMPLETION_HELP, async (args, context, io) => {
  // `--complete INDEX -- WORDS...`: what the scripts call. The words are the shell's, after `--`, so neither --help nor
  // --color among them is taken as an option of this command (run.ts and help.ts stop at `--`).
  if (args[0] === "--complete") {
    const index = Number(args[1]);
    if (!Number.isInteger(index) || index < 0 || args[2] !== "--") return EXIT_CODES.usage;
    const words = args.slice(3);
    for (const candidate of await completeWords(words, index, context)) io.stdout(candidate);
    return EXIT_CODES.ok;
  }
  const parsed = parse(args, {}, 1);
  if ("ok" in parsed) return fail(parsed, io, false);
  const shell = parsed.positionals[0] as string;
  if (!(SHELLS as readonly string[]).includes(shell))
    return fail(
      { ok: false, reason: "usage", detail: `completion takes bash, zsh or fish, not ${quoted(shell)}${didYouMean(shell, SHELLS)}` },
      io,
      false,
    );
  io.stdout(completionScript(shell as Shell));
  return EXIT_CODES.ok;
});
