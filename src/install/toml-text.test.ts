import { describe, expect, it } from "vitest";
import { arrayTables, editArrayTables, findTable, parseTomlDocument, removeTable, setTable, tableSpans, tomlString } from "./toml-text.ts";

const ours = [
  ["command", "/usr/bin/node"],
  ["args", ["/x y/bin/tongs-agents.js", "mcp"]],
] as const;

describe("TOML owned tables", () => {
  it("adds a table after its group, keeps every comment and the rest byte for byte, and removal restores the file", () => {
    const before = `# my config\nmodel = "o3" # inline comment\n\n[mcp_servers.docs]\ncommand = "docs"\n\n# tools I like\n[tools]\nweb = true\n`;
    const added = setTable(before, ["mcp_servers", "tongs-agents"], ours);
    expect(added).toBe(
      `# my config\nmodel = "o3" # inline comment\n\n[mcp_servers.docs]\ncommand = "docs"\n\n[mcp_servers.tongs-agents]\ncommand = "/usr/bin/node"\nargs = ["/x y/bin/tongs-agents.js", "mcp"]\n\n# tools I like\n[tools]\nweb = true\n`,
    );
    expect(removeTable(added, ["mcp_servers", "tongs-agents"])).toBe(before);
  });

  it("appends at the end with one blank line, keeps CRLF, and removal restores the file", () => {
    for (const before of ['model = "x"\n', 'model = "x"', 'model = "x"\r\n', "", "\n"]) {
      const added = setTable(before, ["hooks", "state", "/h/hooks.json:stop:0:0"], [["trusted_hash", "sha256:ab"]]);
      expect(parseTomlDocument(added)).toMatchObject({
        ok: true,
        data: { hooks: { state: { "/h/hooks.json:stop:0:0": { trusted_hash: "sha256:ab" } } } },
      });
      if (before.includes("\r\n")) expect(added.replaceAll("\r\n", "")).not.toContain("\n");
      if (before !== 'model = "x"') expect(removeTable(added, ["hooks", "state", "/h/hooks.json:stop:0:0"])).toBe(before);
    }
  });

  it("rewrites an existing table's body in place, keeping its header line", () => {
    const before = `[mcp_servers.tongs-agents] # ours\ncommand = "/old/node"\nargs = ["/old/bin/tongs-agents.js", "mcp"]\n\n[other]\nx = 1\n`;
    expect(setTable(before, ["mcp_servers", "tongs-agents"], ours)).toBe(
      `[mcp_servers.tongs-agents] # ours\ncommand = "/usr/bin/node"\nargs = ["/x y/bin/tongs-agents.js", "mcp"]\n\n[other]\nx = 1\n`,
    );
  });

  it("is not fooled by header-like lines inside strings and arrays", () => {
    const text = `a = """\n[mcp_servers.tongs-agents]\n"""\nb = [\n  ["x"],\n]\nc = '''\n[fake]'''\n[real."quoted.key"]\nd = 1\n`;
    expect(tableSpans(text).map((span) => span.path)).toEqual([["real", "quoted.key"]]);
    expect(findTable(text, ["mcp_servers", "tongs-agents"])).toBeUndefined();
  });

  it("refuses an edit when the table is also defined another way", () => {
    expect(() => setTable(`mcp_servers = { tongs-agents = { command = "x" } }\n`, ["mcp_servers", "tongs-agents"], ours)).toThrow(
      /invalid|form/,
    );
    expect(() => setTable(`[mcp_servers]\ntongs-agents.command = "x"\n`, ["mcp_servers", "tongs-agents"], ours)).toThrow();
  });

  it("quotes strings the TOML way", () => {
    expect(tomlString('a"b\\c\u0001\u007f')).toBe('"a\\"b\\\\c\\u0001\\u007f"');
    expect(parseTomlDocument(`x = ${tomlString("é 'q' \" \\ \t")}`)).toMatchObject({ data: { x: "é 'q' \" \\ \t" } });
  });
});

describe("arrays of tables ([[hooks]])", () => {
  const USER = '# top\nmodel = "m"\n\n[[hooks]]\nevent = "Stop" # mine\ncommand = "true"\n\n[other]\nx = 1\n';
  const ours = [
    ["event", "PreToolUse"],
    ["command", "run it"],
    ["timeout", 5],
  ] as const;

  it("appends after the last table of the array, and removing it gives the text back byte for byte", () => {
    const added = editArrayTables(USER, ["hooks"], { append: [ours] });
    expect(added).toBe(
      '# top\nmodel = "m"\n\n[[hooks]]\nevent = "Stop" # mine\ncommand = "true"\n\n[[hooks]]\nevent = "PreToolUse"\ncommand = "run it"\ntimeout = 5\n\n[other]\nx = 1\n',
    );
    const [, second] = arrayTables(added, ["hooks"]);
    expect(second?.body).toEqual({ event: "PreToolUse", command: "run it", timeout: 5 });
    expect(editArrayTables(added, ["hooks"], { remove: new Set([second?.span.start as number]) })).toBe(USER);
  });

  it("appends at the end when there is no such array yet (one blank line between), and to an empty text", () => {
    expect(editArrayTables("a = 1\n", ["hooks"], { append: [ours] })).toBe(
      'a = 1\n\n[[hooks]]\nevent = "PreToolUse"\ncommand = "run it"\ntimeout = 5\n',
    );
    expect(editArrayTables("", ["hooks"], { append: [ours, ours] })).toBe(
      '[[hooks]]\nevent = "PreToolUse"\ncommand = "run it"\ntimeout = 5\n\n[[hooks]]\nevent = "PreToolUse"\ncommand = "run it"\ntimeout = 5\n',
    );
  });

  it("replaces a table's keys in place, keeping its header and its neighbours", () => {
    const added = editArrayTables(USER, ["hooks"], { append: [ours] });
    const [, second] = arrayTables(added, ["hooks"]);
    const moved = editArrayTables(added, ["hooks"], {
      replace: new Map([
        [
          second?.span.start as number,
          [
            ["event", "PreToolUse"],
            ["command", "moved"],
            ["timeout", 5],
          ] as const,
        ],
      ]),
    });
    expect(moved).toBe(added.replace('command = "run it"', 'command = "moved"'));
  });

  it("refuses an array defined inline, and an edit that would make the file invalid", () => {
    expect(() => editArrayTables('hooks = [{ event = "Stop" }]\n', ["hooks"], { append: [ours] })).toThrow(/inline array/);
    expect(() => editArrayTables("hooks = 1\n", ["hooks"], { append: [ours] })).toThrow();
  });
});
