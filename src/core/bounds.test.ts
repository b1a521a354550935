import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byteLength, isStorableText, toDisplayLine, truncateBytes } from "./bounds.ts";

describe("bounds", () => {
  it("cuts on code point boundaries and never exceeds the byte budget", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 4, max: 600 }), (text, max) => {
        const cut = truncateBytes(text, max);
        expect(byteLength(cut)).toBeLessThanOrEqual(Math.max(max, 0));
        expect(cut.isWellFormed()).toBe(true);
        if (byteLength(text) <= max) expect(cut).toBe(text);
      }),
    );
  });

  it("neutralizes terminal escapes, controls and bidi overrides in display text", () => {
    expect(toDisplayLine("ok\u001b[2J\u001b]0;title\u0007 done\r\nnext\u202eevil")).toBe("ok [2J ]0;title done next evil");
  });

  it("refuses NUL and lone surrogates as storable text", () => {
    expect(isStorableText("a\0b")).toBe(false);
    expect(isStorableText("\ud800")).toBe(false);
    expect(isStorableText("naïve 日本 🎉")).toBe(true);
  });
});
