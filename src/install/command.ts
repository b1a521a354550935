// The hook command line written into harness configs: absolute paths (the Node that ran the installer, the installed
// hook script), quoted for `sh -c` so paths with spaces, quotes or `$` survive every POSIX shell.

/** Quote one word for a POSIX shell: single quotes, with each embedded single quote written as '\''. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface HookCommandParts {
  /** Absolute path of the Node binary that runs the hook (>= 22). */
  readonly node: string;
  /** Absolute path of bin/tongs-agents-hook.cjs. */
  readonly hook: string;
  readonly alias: string;
  readonly agent: string;
}

export function hookCommandLine({ node, hook, alias, agent }: HookCommandParts): string {
  return [node, hook, alias, "--agent", agent].map(shellQuote).join(" ");
}
