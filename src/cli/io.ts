// What every verb shares: its output channels, option parsing, and how a failure is printed and exit-coded. Every line a
// verb prints goes through `verbIo`: the one writer that makes text safe for the terminal (src/core/terminal-text.ts),
// so no agent's, host's or config file's text reaches it raw, whichever verb or error path printed it. ESLint keeps
// process.stdout, process.stderr and console out of everything but the entry points that give this writer its sink.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { exitCodeOf, type Failure } from "../core/errors.ts";
import { QUOTED_MAX_CHARS, cutChars, displayLine, quoted, visibleText } from "../core/terminal-text.ts";
import type { CliContext, CliIo } from "./context.ts";
import { shortenHome } from "../core/home.ts";
import { didYouMean } from "../core/suggest.ts";

export type { CliIo } from "./context.ts";

/** Part of a line in a colour (an SGR code of ours), shown in that colour only when the output is a colour terminal. */
export interface Styled {
  readonly sgr: number;
  readonly text: string;
}

/** What a verb prints: text, or text with coloured parts. */
export type Output = string | readonly (string | Styled)[];

/** The output channels a verb is given: everything it prints is made safe for the terminal on the way out. */
export interface VerbIo extends Omit<CliIo, "stdout" | "stderr"> {
  readonly stdout: (text: Output) => void;
  readonly stderr: (text: Output) => void;
}

/** A verb: parse its own arguments, do its work, print, return the exit code. */
export type Verb = (args: string[], context: CliContext, io: VerbIo) => Promise<number>;

/** Output as the terminal gets it: each character it could act on made visible, our own colours added when wanted. */
export function renderOutput(text: Output, color: boolean): string {
  if (typeof text === "string") return visibleText(text);
  return text
    .map((part) => {
      if (typeof part === "string") return visibleText(part);
      if (!Number.isInteger(part.sgr) || part.sgr < 0 || part.sgr > 107) throw new Error(`not an SGR colour: ${part.sgr}`);
      return color ? `\u001b[${part.sgr}m${visibleText(part.text)}\u001b[0m` : visibleText(part.text);
    })
    .join("");
}

/** The one writer: what a verb prints, rendered by `renderOutput`, to the entry point's channels. */
export function verbIo(io: CliIo): VerbIo {
  return {
    ...io,
    stdout: (text) => io.stdout(renderOutput(text, io.color)),
    stderr: (text) => io.stderr(renderOutput(text, io.color)),
  };
}

export type Parsed = { values: Record<string, unknown>; positionals: string[] };

export function parse(args: string[], options: ParseArgsConfig["options"], positionals: number | "any"): Parsed | Failure {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: positionals !== 0, strict: true });
    if (positionals !== "any" && parsed.positionals.length !== positionals) {
      const given = parsed.positionals.slice(0, 3).map((word) => quoted(word));
      const got = given.length === 0 ? "none" : `${given.join(", ")}${parsed.positionals.length > 3 ? ", ..." : ""}`;
      return { ok: false, reason: "usage", detail: `expected ${positionals} argument(s), got ${got}` };
    }
    return parsed;
  } catch (error) {
    // Node's words name the argument; an unknown option also gets the ones this command takes, and any is cut.
    const message = (error as Error).message;
    const unknown = /^Unknown option '(.*)'(?:\. |$)/s.exec(message)?.[1];
    const allowed = Object.keys(options ?? {}).map((name) => `--${name}`);
    // A near miss names the option meant (every verb also takes --color, run.ts); otherwise the ones it takes.
    const hint = unknown === undefined ? "" : didYouMean(unknown.split("=")[0] as string, [...allowed, "--color"]);
    return {
      ok: false,
      reason: "usage",
      detail:
        unknown === undefined
          ? cutChars(message, 2 * QUOTED_MAX_CHARS)
          : `unknown option ${quoted(unknown)}${hint === "" ? ` (this command takes ${allowed.length > 0 ? allowed.join(", ") : "none"})` : hint}`,
    };
  }
}

export function fail(failure: Failure, io: VerbIo, json: boolean): number {
  if (json) io.stdout(JSON.stringify(failure, null, 2));
  else {
    io.stderr(`tongs-agents: ${failure.detail}`);
    if (failure.reason === "ambiguous") {
      for (const candidate of failure.candidates)
        io.stderr(
          `  ${candidate.short_id}  ${candidate.harness}  ${candidate.status}  ${displayLine(shortenHome(candidate.cwd, io.home))}  (${displayLine(candidate.id)})`,
        );
    }
  }
  return exitCodeOf(failure);
}
