// The quoting every shell command line goes through, read back by the real shells tongs-agents' commands meet here:
// sh, dash and bash (e2e/shells.e2e.test.ts adds zsh, ksh and fish in a container).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shellCommand, shellQuote } from "./shell-quote.ts";

const SHELLS = ["/bin/sh", "/bin/dash", "/bin/bash"];
const HARD = [
  "",
  "plain",
  "it's",
  "a b",
  "$(id)",
  "`id`",
  "x;rm -rf ~",
  "'''",
  "new\nline",
  "\\",
  "\\'",
  "ünï ✓",
  "*",
  "-n",
  "=x",
  "%1",
  "~",
];

/** What `shell` makes of the command line `printf '%s\0' <words>`: each word it passed, in order. */
function readBack(shell: string, words: readonly string[]): string[] {
  const out = execFileSync(shell, ["-c", `printf '%s\\0' ${shellCommand(words)}`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

describe.each(SHELLS)("shellQuote, read back by %s", (shell) => {
  it("is there to test", () => {
    expect(existsSync(shell)).toBe(true);
  });

  it.each(HARD)("%j is one word with the same bytes", (word) => {
    expect(readBack(shell, [word])).toEqual([word]);
  });

  it("any words at all (NUL aside) come back as the same words", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ maxLength: 24, unit: "binary" }).filter((text) => !text.includes("\0")),
          { minLength: 1, maxLength: 5 },
        ),
        (words) => {
          expect(readBack(shell, words)).toEqual(words);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe("shellQuote", () => {
  it("leaves plain words alone and quotes everything else", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("/opt/my tools/node")).toBe("'/opt/my tools/node'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("a\\b")).toBe("'a'\\\\'b'");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("=x")).toBe("'=x'");
  });

  it("refuses a NUL byte", () => {
    expect(() => shellQuote("a\0b")).toThrow();
  });
});
