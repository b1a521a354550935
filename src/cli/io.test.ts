// The one writer: whatever a verb prints reaches the terminal with every character it could act on made visible, and
// only our own colours as escape sequences.
import { describe, expect, it } from "vitest";
import { colorStatus } from "./format.ts";
import { renderOutput, verbIo, type CliIo } from "./io.ts";

describe("the writer", () => {
  it("shows the escapes in what a verb prints, on stdout and stderr alike", () => {
    const out: string[] = [];
    const err: string[] = [];
    const sink: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), color: true, columns: 80 };
    const io = verbIo(sink);
    io.stdout("dir \x1b]52;c;ZXZpbA==\x07 \x9b31m\nnext line");
    io.stderr(["error: ", colorStatus("error", "\x1b[2J")]);
    expect(out).toEqual(["dir \\u001b]52;c;ZXZpbA==\\u0007 \\u009b31m\nnext line"]);
    expect(err).toEqual(["error: \u001b[31m\\u001b[2J\u001b[0m"]);
  });

  it("adds our colours only for a colour terminal", () => {
    const parts = ["a ", colorStatus("waiting", "waiting"), " b"];
    expect(renderOutput(parts, true)).toBe("a \u001b[33mwaiting\u001b[0m b");
    expect(renderOutput(parts, false)).toBe("a waiting b");
  });

  it("refuses a colour that is not an SGR code of ours", () => {
    expect(() => renderOutput([{ sgr: 1.5, text: "x" }], true)).toThrow(/not an SGR colour/);
  });
});
