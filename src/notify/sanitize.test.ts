import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Notice } from "./contract.ts";
import { composeNotice } from "./message.ts";
import { cleanLine, cleanLines, escapeMarkup, osc9Text, oscField, tmuxMessageText } from "./sanitize.ts";
import { oscNotification, tmuxPassthrough, type TerminalKind } from "./terminal-osc.ts";

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Hostile text an agent could put in a directory name, a tool name or its last reply. */
const HOSTILE = [
  "\x1b]0;pwned\x07", // OSC title change ended by BEL
  "\x1b]52;c;ZXZpbA==\x1b\\", // OSC 52 clipboard write ended by ST
  "\x9b31m\x9d8;;http://evil\x9c", // 8-bit CSI, OSC and ST (C1 controls)
  "\x1bPtmux;\x1b\x1b]9;fake\x07\x1b\\", // a tmux passthrough of its own
  "\x07\x07\x07", // bells
  "line1\nline2\r\n\tline3", // layout characters
  "\u202eevil\u202c", // bidirectional override
  "\ud800lone surrogate \udfff", // text that was not valid UTF-8
  Buffer.from([0x66, 0x6f, 0xff, 0xfe, 0xc3, 0x28]).toString("utf8"), // invalid UTF-8 bytes, decoded
  "x".repeat(100_000), // very long
];

describe("cleanLine", () => {
  it.each(HOSTILE.map((text) => [JSON.stringify(text.slice(0, 40)), text]))("leaves no control character from %s", (_name, text) => {
    const line = cleanLine(text);
    expect(line).not.toMatch(CONTROL);
    expect(line.isWellFormed()).toBe(true);
    expect(Array.from(line).length).toBeLessThanOrEqual(160);
  });

  it("keeps ordinary text, collapses whitespace, marks a cut with an ellipsis", () => {
    expect(cleanLine("  permission:\tBash  \n ")).toBe("permission: Bash");
    expect(cleanLine("héllo wörld ✓")).toBe("héllo wörld ✓");
    expect(cleanLine("abcdef", 4)).toBe("abc…");
    // A cut never splits a surrogate pair.
    expect(cleanLine("😀😀😀😀", 3)).toBe("😀😀…");
  });

  it("shows lone surrogates and control characters as their escapes", () => {
    expect(cleanLine("a\ud800b")).toBe("a\\ud800b");
    expect(cleanLine("\x1b]52;c;ZXZpbA==\x07")).toBe("\\u001b]52;c;ZXZpbA==\\u0007");
  });

  it("holds for any text (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), fc.integer({ min: 1, max: 200 }), (text, max) => {
        const line = cleanLine(text, max);
        return !CONTROL.test(line) && line.isWellFormed() && Array.from(line).length <= max;
      }),
    );
  });
});

describe("cleanLines", () => {
  it("drops empty lines and counts what does not fit", () => {
    expect(cleanLines(["a", " \n", "b", "c", "d"], 3)).toEqual(["a", "b", "and 2 more"]);
  });
});

describe("escapes for each medium", () => {
  it("markup, tmux formats, OSC fields and OSC 9 sub-commands", () => {
    expect(escapeMarkup("<b>a & b</b>")).toBe("&lt;b&gt;a &amp; b&lt;/b&gt;");
    expect(tmuxMessageText("#(rm -rf ~) #{pane_id} x;")).toBe("##(rm -rf ~) ##{pane_id} x;.");
    expect(oscField("title;with;semicolons")).toBe("title,with,semicolons");
    expect(osc9Text("4;3;50")).toBe(" 4;3;50");
    expect(osc9Text("Claude Code needs you")).toBe("Claude Code needs you");
  });
});

const KINDS: readonly TerminalKind[] = ["kitty", "wezterm", "ghostty", "foot", "iterm2"];

/** A sequence with its known structure removed: what is left came from the notice's text. */
/* eslint-disable no-control-regex */
function payloadOf(sequence: string): string {
  return sequence
    .replace(/\x1bPtmux;/g, "")
    .replace(/\x1b\x1b/g, "\x1b")
    .replace(/\x1b\]99;i=[0-9a-f]+:d=[01](:p=body)?:e=1;[A-Za-z0-9+/=]*\x1b\\/g, "")
    .replace(/\x1b\](9|777;notify);/g, "")
    .replace(/\x07/g, "")
    .replace(/\x1b\\$/, "");
}
/* eslint-enable no-control-regex */

describe("terminal sequences built from hostile text", () => {
  it.each(KINDS)("%s: no control character of the agent's reaches the terminal, plain or through tmux", (kind) => {
    for (const text of HOSTILE) {
      const notice: Notice = composeNotice([
        { id: "fleet:v1:claude:x", harnessName: "Claude Code", cwd: `/w/${text}`, status: "waiting", detail: text, where: "tmux %1" },
      ]);
      for (const sequence of [oscNotification(kind, notice, "ab12"), tmuxPassthrough(oscNotification(kind, notice, "ab12"))]) {
        expect(payloadOf(sequence)).not.toMatch(CONTROL);
      }
    }
  });

  it("holds for any text (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.constantFrom(...KINDS),
        (cwd, detail, kind) => {
          const notice = composeNotice([{ id: "fleet:v1:claude:x", harnessName: "Codex", cwd, status: "error", detail, where: "here" }]);
          return !CONTROL.test(payloadOf(tmuxPassthrough(oscNotification(kind, notice, "ab12"))));
        },
      ),
    );
  });
});
