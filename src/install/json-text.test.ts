import { describe, expect, it } from "vitest";
import { appendJsonItem, parseJsonDocument, removeJsonValue, setJsonValue, type JsonStyle } from "./json-text.ts";

const style = (text: string): JsonStyle => {
  const parsed = parseJsonDocument(text, "jsonc");
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.style;
};
const group = { hooks: [{ type: "command", command: "ours", timeout: 5 }] };

describe("JSON text edits", () => {
  it("appends to an array without touching the user's compact neighbour, and removal restores the bytes", () => {
    const before =
      '{\n  "model": "x",\n  "hooks": {\n    "Stop": [\n      {"hooks": [{"type": "command", "command": "mine"}]}\n    ]\n  }\n}\n';
    const added = appendJsonItem(before, ["hooks", "Stop"], group, style(before));
    expect(added).toContain('      {"hooks": [{"type": "command", "command": "mine"}]},\n      {\n        "hooks": [');
    expect(JSON.parse(added).hooks.Stop[1]).toEqual(group);
    expect(removeJsonValue(added, ["hooks", "Stop", 1])).toBe(before);
  });

  it("adds missing parents with the file's own indentation and line endings, and removal restores the bytes", () => {
    const before = '{\r\n\t"a": 1\r\n}';
    const added = setJsonValue(before, ["hooks", "Stop"], [group], style(before));
    expect(added).toBe(
      '{\r\n\t"a": 1,\r\n\t"hooks": {\r\n\t\t"Stop": [\r\n\t\t\t{\r\n\t\t\t\t"hooks": [\r\n\t\t\t\t\t{\r\n\t\t\t\t\t\t"type": "command",\r\n\t\t\t\t\t\t"command": "ours",\r\n\t\t\t\t\t\t"timeout": 5\r\n\t\t\t\t\t}\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t]\r\n\t}\r\n}',
    );
    expect(removeJsonValue(added, ["hooks"])).toBe(before);
  });

  it("writes a new document with a final newline, and handles empty containers", () => {
    expect(setJsonValue("", ["mcpServers", "x"], { a: 1 }, style(""))).toBe(
      '{\n  "mcpServers": {\n    "x": {\n      "a": 1\n    }\n  }\n}\n',
    );
    expect(appendJsonItem('{"hooks": {"Stop": []}}', ["hooks", "Stop"], 1, style("{}"))).toBe('{"hooks": {"Stop": [\n  1\n]}}');
    expect(removeJsonValue('{\n  "a": [1]\n}\n', ["a", 0])).toBe('{\n  "a": []\n}\n');
    expect(removeJsonValue('{"a": 1, "b": 2}', ["a"])).toBe('{"b": 2}');
  });

  it("replaces a value in place", () => {
    const before = '{\n  "x": {"command": "/old"},\n  "y": 2\n}\n';
    expect(setJsonValue(before, ["x", "command"], "/new", style(before))).toBe('{\n  "x": {"command": "/new"},\n  "y": 2\n}\n');
  });

  it("refuses what it cannot edit safely", () => {
    expect(parseJsonDocument("{ // comment\n}")).toMatchObject({ ok: false, detail: expect.stringMatching(/^not valid JSON \(/) });
    expect(parseJsonDocument("[1]")).toMatchObject({ ok: false, detail: "the top level is not a JSON object" });
    expect(() => setJsonValue('{"hooks": 1, "hooks": {}}', ["hooks", "Stop"], [], style("{}"))).toThrow();
  });

  describe("with comments (Gemini CLI, Qwen Code) and trailing commas (OpenCode)", () => {
    const server = { command: "/n", args: ["/t.js", "mcp"] };

    it("reads each dialect only where it is allowed, and says why not", () => {
      const commented = '{\n  // mine\n  "a": 1 /* why */\n}\n';
      expect(parseJsonDocument(commented, "comments")).toMatchObject({ ok: true, data: { a: 1 } });
      expect(parseJsonDocument(commented)).toMatchObject({ ok: false, detail: expect.stringMatching(/^not valid JSON/) });
      expect(parseJsonDocument('{"a": 1,}', "comments")).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/^not valid JSON \(comments allowed\) \(PropertyNameExpected at offset 8\)/),
      });
      expect(parseJsonDocument('{"a": 1,}', "jsonc")).toMatchObject({ ok: true, data: { a: 1 } });
      expect(parseJsonDocument("{\n  /* unclosed", "jsonc")).toMatchObject({ ok: false });
    });

    it("adds after a member whose line ends in a comment, keeping the comment with it; removal restores the bytes", () => {
      const before = '{\n  // models\n  "model": "x", // the fast one\n  "theme": "dark" // mine\n}\n';
      const added = setJsonValue(before, ["mcpServers", "t"], server, style(before));
      expect(added).toContain('  "theme": "dark", // mine\n  "mcpServers": {\n');
      expect(parseJsonDocument(added, "comments")).toMatchObject({ ok: true, data: { mcpServers: { t: server } } });
      expect(removeJsonValue(added, ["mcpServers"])).toBe(before);
    });

    it("keeps a trailing comma style: the new member has one too, and removal restores the bytes", () => {
      const before = '{\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": {\n    "x": {"type": "local"},\n  },\n}\n';
      const added = setJsonValue(before, ["mcp", "t"], { type: "local" }, style(before));
      expect(added).toContain('    "x": {"type": "local"},\n    "t": {\n      "type": "local"\n    },\n  },');
      expect(removeJsonValue(added, ["mcp", "t"])).toBe(before);
      const top = setJsonValue(before, ["plugin"], ["p"], style(before));
      expect(removeJsonValue(top, ["plugin"])).toBe(before);
    });

    it("fills a container that holds only a comment without losing it; removal restores the bytes", () => {
      const before = '{\n  "mcpServers": { // none yet\n  },\n  "hooks": [\n    /* later */\n  ]\n}\n';
      const added = setJsonValue(before, ["mcpServers", "t"], server, style(before));
      expect(added).toContain("// none yet");
      expect(removeJsonValue(added, ["mcpServers", "t"])).toBe(before);
      const appended = appendJsonItem(before, ["hooks"], 1, style(before));
      expect(appended).toContain("/* later */");
      expect(removeJsonValue(appended, ["hooks", 0])).toBe(before);
    });

    it("removing the only member after a comment keeps the comment", () => {
      const text = '{\n  "mcpServers": {\n    // ours below\n    "t": {}\n  }\n}\n';
      expect(removeJsonValue(text, ["mcpServers", "t"])).toBe('{\n  "mcpServers": {\n    // ours below\n  }\n}\n');
    });

    it("never leaves a strict file looser than it was", () => {
      const strict = '{\n  "a": 1\n}\n';
      const added = setJsonValue(strict, ["b"], 2, style(strict));
      expect(JSON.parse(removeJsonValue(added, ["b"]))).toEqual({ a: 1 });
      expect(JSON.parse(added)).toEqual({ a: 1, b: 2 });
    });
  });
});
