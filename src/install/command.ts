// The hook command line written into harness configs: absolute paths (the Node that ran the installer, the installed
// hook script), quoted for `sh -c` so paths with spaces, quotes or `$` survive every POSIX shell.

/**
 * Quote one word for POSIX shells and fish alike: single quotes, with each `'` written as `'\''` and each `\` as
 * `'\\'` (closed quotes, an escaped character, quotes reopened). Inside single quotes sh keeps a backslash while
 * fish reads `\\` and `\'` as escapes; outside quotes both read `\\` as one backslash and `\'` as a quote.
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/['\\]/g, (char) => `'\\${char}'`)}'`;
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
