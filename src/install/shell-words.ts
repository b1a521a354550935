// Split a hook command line back into words, the way `sh -c` would for the simple forms our installer writes:
// unquoted words, '...' and "..." quoting, backslash escapes. Anything that makes the shell do more than run one
// program (expansions, redirections, pipes, lists) returns undefined: such a command is not one of ours.

const OPERATOR = new Set(["|", "&", ";", "<", ">", "(", ")", "`", "$", "*", "?", "[", "~", "#", "{", "}", "\n"]);

export function splitShellWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let index = 0; index < command.length; index++) {
    const char = command[index] as string;
    if (char === " " || char === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    if (char === "'") {
      const end = command.indexOf("'", index + 1);
      if (end === -1) return undefined;
      word = (word ?? "") + command.slice(index + 1, end);
      index = end;
      continue;
    }
    if (char === '"') {
      let text = "";
      let closed = false;
      for (index++; index < command.length; index++) {
        const inner = command[index] as string;
        if (inner === '"') {
          closed = true;
          break;
        }
        if (inner === "$" || inner === "`") return undefined;
        if (inner === "\\" && index + 1 < command.length && '"\\$`\n'.includes(command[index + 1] as string)) {
          text += command[++index];
          continue;
        }
        text += inner;
      }
      if (!closed) return undefined;
      word = (word ?? "") + text;
      continue;
    }
    if (char === "\\") {
      if (index + 1 >= command.length) return undefined;
      word = (word ?? "") + command[++index];
      continue;
    }
    if (OPERATOR.has(char) || (char === "=" && word !== undefined && words.length === 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(word)))
      return undefined;
    word = (word ?? "") + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}
