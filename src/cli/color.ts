// `--color=always|never|auto`, which every verb takes: the one writer (io.ts) colours its output when the entry point
// found a terminal and no NO_COLOR (auto, https://no-color.org), or as this option says.
import type { Failure } from "../core/errors.ts";
import { didYouMean } from "../core/suggest.ts";
import { quoted } from "../core/terminal-text.ts";

export const COLOR_MODES = ["always", "never", "auto"] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

/** The command line without its `--color` option (before any `--`), and the mode it asked for (auto when none). */
export function takeColorOption(argv: readonly string[]): { ok: true; mode: ColorMode; argv: string[] } | Failure {
  const rest: string[] = [];
  let mode: string = "auto";
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] as string;
    if (word === "--") {
      rest.push(...argv.slice(index));
      break;
    }
    if (word === "--color") {
      mode = argv[++index] ?? "";
      continue;
    }
    const joined = /^--color=(.*)$/s.exec(word);
    if (joined) mode = joined[1] as string;
    else rest.push(word);
  }
  if (!(COLOR_MODES as readonly string[]).includes(mode))
    return {
      ok: false,
      reason: "usage",
      detail: `--color takes always, never or auto, not ${quoted(mode)}${didYouMean(mode, COLOR_MODES)}`,
    };
  return { ok: true, mode: mode as ColorMode, argv: rest };
}
