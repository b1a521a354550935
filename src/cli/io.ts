// What every verb shares: its output channels, option parsing, and how a failure is printed and exit-coded.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { exitCodeOf, type Failure } from "../core/errors.ts";
import type { CliContext, CliIo } from "./context.ts";
import { shortenHome } from "../core/home.ts";
import { USAGE } from "./usage.ts";

export type { CliIo } from "./context.ts";

/** A verb: parse its own arguments, do its work, print, return the exit code. */
export type Verb = (args: string[], context: CliContext, io: CliIo) => Promise<number>;

export type Parsed = { values: Record<string, unknown>; positionals: string[] };

export function parse(args: string[], options: ParseArgsConfig["options"], positionals: number | "any"): Parsed | Failure {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: positionals !== 0, strict: true });
    if (positionals !== "any" && parsed.positionals.length !== positionals)
      return { ok: false, reason: "usage", detail: `expected ${positionals} argument(s)` };
    return parsed;
  } catch (error) {
    return { ok: false, reason: "usage", detail: (error as Error).message };
  }
}

export function fail(failure: Failure, io: CliIo, json: boolean): number {
  if (json) io.stdout(JSON.stringify(failure, null, 2));
  else {
    io.stderr(`tongs-agents: ${failure.detail}`);
    if (failure.reason === "ambiguous") {
      for (const candidate of failure.candidates)
        io.stderr(
          `  ${candidate.short_id}  ${candidate.harness}  ${candidate.status}  ${shortenHome(candidate.cwd, io.home)}  (${candidate.id})`,
        );
    }
    if (failure.reason === "usage") io.stderr(USAGE);
  }
  return exitCodeOf(failure);
}
