// The one way tongs-agents quotes a word for a shell: the hook command written into a harness's config, the command
// ssh runs on a host, what the keypress server's resident shell runs, a tmux.conf binding, the demo's agents,
// terminal-notifier's click command. POSIX shells (sh, dash, bash, zsh, ksh) and fish read it back as the same word.

/** Words of these characters need no quotes in any of those shells (`=` or `%` first: zsh and old fish expand it). */
const PLAIN = /^[A-Za-z0-9_@+:,./-][A-Za-z0-9_@%+=:,./-]*$/;

/**
 * One word, quoted: a plain word stays as it is; any other is single-quoted, with each `'` and `\` written outside
 * the quotes, escaped (`'\''`, `'\\'`). Inside single quotes sh keeps a backslash while fish reads `\\` and `\'` as
 * escapes; outside quotes both read `\\` as one backslash and `\'` as a quote. A NUL byte cannot be passed at all.
 */
export function shellQuote(word: string): string {
  if (word.includes("\0")) throw new Error("a shell word cannot hold a NUL byte");
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/['\\]/g, (char) => `'\\${char}'`)}'`;
}

/** Words quoted and joined by spaces: a command line. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
