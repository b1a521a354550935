import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutChars, displayLine, quoted, tmuxFormatText, visibleText } from "./terminal-text.ts";

// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("visibleText", () => {
  it.each([
    ["OSC 52", "\x1b]52;c;ZXZpbA==\x07", "\\u001b]52;c;ZXZpbA==\\u0007"],
    ["OSC 8", "\x1b]8;;http://x\x1b\\a\x1b]8;;\x1b\\", "\\u001b]8;;http://x\\u001b\\a\\u001b]8;;\\u001b\\"],
    ["C1 CSI", "\x9b31m", "\\u009b31m"],
    ["DEL and CR", "a\x7fb\rc", "a\\u007fb\\u000dc"],
    ["bidirectional override", "\u202eevil\u202c", "\\u202eevil\\u202c"],
    ["lone surrogates", "a\ud800b\udfffc", "a\\ud800b\\udfffc"],
  ])("shows %s as its escapes", (_name, text, shown) => {
    expect(visibleText(text)).toBe(shown);
  });

  it("keeps newlines, tabs, pairs of surrogates and any other text", () => {
    expect(visibleText("a\n\tb 😀 héllo ✓ #(x)")).toBe("a\n\tb 😀 héllo ✓ #(x)");
  });

  it("keeps JSON valid and the same once parsed: the escapes are JSON's", () => {
    const value = { text: "\x1b]2;t\x07 \x9b \u202e \ud800" };
    const shown = visibleText(JSON.stringify(value));
    expect(shown).not.toMatch(RAW);
    expect(JSON.parse(shown)).toEqual(value);
  });

  it("leaves nothing a terminal acts on, for any text (property), and is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        const shown = visibleText(text);
        return !RAW.test(shown) && shown.isWellFormed() && visibleText(shown) === shown;
      }),
    );
  });
});

describe("displayLine, quoted, tmuxFormatText", () => {
  it("one line: layout characters a space, runs of whitespace one space", () => {
    expect(displayLine("  a\n\tb\x1b[2J  c ")).toBe("a b\\u001b[2J c");
  });

  it("quotes a value cut to its bound, made visible; other values by their kind", () => {
    expect(quoted("a\x1bb")).toBe('"a\\u001bb"');
    expect(quoted("x".repeat(200))).toBe(`"${"x".repeat(79)}…"`);
    expect(quoted("\x9b".repeat(200), 3)).toBe('"\\u009b\\u009b…"');
    expect([quoted(7), quoted(true), quoted(null), quoted([]), quoted([1, 2]), quoted({}), quoted(undefined)]).toEqual([
      "7",
      "true",
      "null",
      "an empty list",
      "a list of 2",
      "an object",
      "nothing",
    ]);
  });

  it("a tmux format: # doubled, one visible line", () => {
    expect(tmuxFormatText("#(rm -rf ~) #[fg=red]\x1b]0;x\x07\nok")).toBe("##(rm -rf ~) ##[fg=red]\\u001b]0;x\\u0007 ok");
  });

  it("cuts by code points, never inside a pair", () => {
    expect(cutChars("😀😀😀😀", 3)).toBe("😀😀…");
    expect(cutChars("abc", 3)).toBe("abc");
  });
});
