import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shellQuote } from "../core/shell-quote.ts";
import { splitShellWords } from "./shell-words.ts";

describe("splitShellWords", () => {
  it("undoes shellQuote for any words", () => {
    fc.assert(
      // A first word like `A=b` is an assignment to sh, not a command (our first word is always an absolute path).
      fc.property(
        fc
          .array(
            fc.string({ maxLength: 20 }).filter((text) => !text.includes("\0")),
            { minLength: 1, maxLength: 6 },
          )
          .filter((words) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string)),
        (words) => {
          expect(splitShellWords(words.map(shellQuote).join(" "))).toEqual(words);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reads the usual quoting forms", () => {
    expect(splitShellWords(`"/a b/node" /x/hook.cjs stop --agent claude`)).toEqual([
      "/a b/node",
      "/x/hook.cjs",
      "stop",
      "--agent",
      "claude",
    ]);
    expect(splitShellWords(`/a\\ b/node 'it'\\''s'`)).toEqual(["/a b/node", "it's"]);
  });

  it("refuses commands that make the shell do more than run one program", () => {
    for (const command of [
      "a; b",
      "a | b",
      "a > f",
      "A=1 node hook",
      "node $HOME/hook",
      "node `x`",
      "node 'open",
      'node "$X"',
      "node ~/hook",
      "a && b",
    ]) {
      expect(splitShellWords(command), command).toBeUndefined();
    }
  });
});
