import { describe, expect, it } from "vitest";
import { appendJsonItem, parseJsonDocument, removeJsonValue, setJsonValue, type JsonStyle } from "./json-text.ts";

const style = (text: string): JsonStyle => {
  const parsed = parseJsonDocument(text);
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
    expect(parseJsonDocument("{ // comment\n}")).toMatchObject({ ok: false });
    expect(parseJsonDocument("[1]")).toMatchObject({ ok: false, detail: "the top level is not a JSON object" });
    expect(() => setJsonValue('{"hooks": 1, "hooks": {}}', ["hooks", "Stop"], [], style("{}"))).toThrow();
  });
});
