import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KEY_DIALOGS, optionFor, readDialog, replyOfLabel, sameDialog } from "./dialogs.ts";
import { parseReply, type Reply } from "./replies.ts";

// The screen of the real Claude Code 2.1.332 in tmux 3.3a, asking to run `touch approved` (captured with
// `capture-pane -p -J`, the project path replaced, trailing blanks cut).
const CLAUDE_SCREEN = readFileSync(join(import.meta.dirname, "fixtures", "claude-2.1.332-bash.txt"), "utf8").split("\n");
const claude = KEY_DIALOGS.find((spec) => spec.harness === "claude")!;
// The real Qwen Code 0.24.4 the same way, asking to run `touch approved` in "Ask permissions" mode.
const QWEN_SCREEN = readFileSync(join(import.meta.dirname, "fixtures", "qwen-0.24.4-shell.txt"), "utf8").split("\n");
const qwen = KEY_DIALOGS.find((spec) => spec.harness === "qwen")!;
// And Gemini CLI 0.61.0, whose dialog is drawn in a box with the request in a box inside it.
const GEMINI_SCREEN = readFileSync(join(import.meta.dirname, "fixtures", "gemini-0.61.0-shell.txt"), "utf8").split("\n");
const gemini = KEY_DIALOGS.find((spec) => spec.harness === "gemini")!;
// Copilot CLI 1.0.102, its dialog in a box, asking to run `touch approved`.
const COPILOT_SCREEN = readFileSync(join(import.meta.dirname, "fixtures", "copilot-1.0.102-shell.txt"), "utf8").split("\n");
const copilot = KEY_DIALOGS.find((spec) => spec.harness === "copilot")!;
// Codex 0.171.0 (`--no-daemon`), asking to run `touch approved` outside its sandbox, the request below the title.
const CODEX_SCREEN = readFileSync(join(import.meta.dirname, "fixtures", "codex-0.171.0-command.txt"), "utf8").split("\n");
const codex = KEY_DIALOGS.find((spec) => spec.harness === "codex")!;
const reply = (...words: string[]): Reply => {
  const parsed = parseReply(words);
  if (!parsed.ok || !("reply" in parsed)) throw new Error(`not a reply: ${words.join(" ")}`);
  return parsed.reply;
};

describe("readDialog", () => {
  it("reads Claude Code's permission dialog: the request, the question and each option with the reply its label gives", () => {
    expect(readDialog(CLAUDE_SCREEN, claude)).toEqual({
      title: "Do you want to proceed?",
      context: [
        "Bash command",
        'Tip: auto mode handles these prompts for you — choose "switch to auto mode" below',
        "Run shell command",
        "touch approved",
      ],
      options: [
        { number: 1, label: "Yes", reply: "allow" },
        { number: 2, label: "Yes, and always allow access to /home/user/project from this project", reply: "always" },
        { number: 3, label: "Yes, and switch to auto mode · auto mode handles these prompts for you", reply: undefined },
        { number: 4, label: "No", reply: "deny" },
      ],
    });
  });

  it("reads Qwen Code's shell dialog, whose two 'always' scopes make `always` ambiguous: a number picks one", () => {
    const dialog = readDialog(QWEN_SCREEN, qwen);
    expect(dialog).toEqual({
      title: "Allow execution of: 'touch'?",
      context: ["? Shell touch approved ←", "touch approved"],
      options: [
        { number: 1, label: "Yes, allow once", reply: "allow" },
        { number: 2, label: "Always allow run 'touch *' commands in this project", reply: "always" },
        { number: 3, label: "Always allow run 'touch *' commands for this user", reply: "always" },
        { number: 4, label: "No, suggest changes (esc)", reply: "deny" },
      ],
    });
    expect(optionFor(dialog!, reply("always"))).toMatchObject({ ok: false, detail: expect.stringContaining("2 options mean always") });
    expect(optionFor(dialog!, reply("deny"))).toMatchObject({ ok: true, option: { number: 4 } });
    expect(readDialog(QWEN_SCREEN, claude)).toBeUndefined();
  });

  it("reads Gemini CLI's boxed shell dialog", () => {
    expect(readDialog(GEMINI_SCREEN, gemini)).toEqual({
      title: "Allow execution of [Shell]?",
      context: ["? Shell  touch approved", "touch approved"],
      options: [
        { number: 1, label: "Allow once", reply: "allow" },
        { number: 2, label: "Allow for this session", reply: "session" },
        { number: 3, label: "No, suggest changes (esc)", reply: "deny" },
      ],
    });
  });

  it("reads Copilot CLI's boxed shell dialog; its No is picked by Esc, the others by their digit", () => {
    const dialog = readDialog(COPILOT_SCREEN, copilot)!;
    expect(dialog).toEqual({
      title: "Do you want to run this command?",
      context: ["touch approved"],
      options: [
        { number: 1, label: "Yes", reply: "allow" },
        { number: 2, label: "Yes, and don't ask again for `touch` in this directory (/home/user/project)", reply: "always" },
        { number: 3, label: "No, and tell Copilot what to do differently (Esc to stop)", reply: "deny" },
      ],
    });
    expect(dialog.options.map((option) => copilot.keysOf(option))).toEqual([["1"], ["2"], ["Escape"]]);
  });

  it("reads Codex's command dialog, the request between its title and its options; each option by its digit", () => {
    const dialog = readDialog(CODEX_SCREEN, codex)!;
    expect(dialog).toEqual({
      title: "Would you like to run the following command?",
      context: [
        "• Running touch approved",
        "Environment: local",
        "Reason: The synthetic provider asks for permission (ASKPERM).",
        "$ touch approved",
      ],
      options: [
        { number: 1, label: "Yes, proceed (y)", reply: "allow" },
        { number: 2, label: "Yes, and don't ask again for commands that start with `touch approved` (p)", reply: "always" },
        { number: 3, label: "No, and tell Codex what to do differently (esc)", reply: "deny" },
      ],
    });
    expect(dialog.options.map((option) => codex.keysOf(option))).toEqual([["1"], ["2"], ["3"]]);
    expect([claude, qwen, gemini].flatMap((spec) => spec.keysOf({ number: 4, label: "No", reply: "deny" }))).toEqual(["4", "4", "4"]);
  });

  it("takes lines between the title and the options only where the harness draws its request there, and only a few", () => {
    const between = ["Do you want to proceed?", "$ touch approved", "❯ 1. Yes", "  2. No"];
    expect(readDialog(between, claude)).toBeUndefined();
    const title = CODEX_SCREEN.findIndex((line) => line.includes("Would you like"));
    // The fixture's request is 3 lines (Environment, Reason, the command); 12 in all are read, 13 are not.
    const longer = (extra: number) => [
      ...CODEX_SCREEN.slice(0, title + 1),
      ...Array.from({ length: extra }, (_, n) => `$ step ${n}`),
      ...CODEX_SCREEN.slice(title + 1),
    ];
    expect(readDialog(longer(9), codex)?.options).toHaveLength(3);
    expect(readDialog(longer(10), codex)).toBeUndefined();
  });

  it("finds no dialog on the prompt input, nor when something follows the options (the user typing below it)", () => {
    const prompt = ["● The tool ran; all done.", "─".repeat(40), "❯", "─".repeat(40), "  ⏸ manual mode on · ? for shortcuts"];
    expect(readDialog(prompt, claude)).toBeUndefined();
    expect(readDialog([...CLAUDE_SCREEN, "❯ hello", "more", "lines"], claude)).toBeUndefined();
  });

  it("needs the options numbered from 1 in order", () => {
    expect(readDialog(["Do you want to proceed?", "  2. Yes", "  3. No"], claude)).toBeUndefined();
    expect(readDialog(["Do you want to proceed?", "❯ 1. Yes", "  3. No"], claude)).toBeUndefined();
  });
});

describe("replyOfLabel", () => {
  it.each([
    ["Yes", "allow"],
    ["Allow once", "allow"],
    ["Yes, allow once", "allow"],
    ["Always allow run 'touch *' commands in this project", "always"],
    ["Yes, just this once", "allow"],
    ["Yes, and always allow access to /x from this project", "always"],
    ["Yes, and don't ask again for Bash commands in /x", "always"],
    ["Allow for all future sessions", "always"],
    ["Allow for this session", "session"],
    ["Yes, and don't ask again for this command in this session", "session"],
    ["Yes, allow all edits during this session (shift+tab)", "session"],
    ["No", "deny"],
    ["No, and tell Claude what to do differently (esc)", "deny"],
    ["Yes, and switch to auto mode · auto mode handles these prompts for you", undefined],
    ["Modify with external editor", undefined],
    ["Red", undefined],
  ])("%s -> %s", (label, expected) => {
    expect(replyOfLabel(label)).toBe(expected);
  });
});

describe("optionFor", () => {
  const dialog = readDialog(CLAUDE_SCREEN, claude)!;
  it("maps a reply to the option by its label, not its position", () => {
    expect(optionFor(dialog, reply("allow"))).toMatchObject({ ok: true, option: { number: 1 } });
    expect(optionFor(dialog, reply("always"))).toMatchObject({ ok: true, option: { number: 2 } });
    expect(optionFor(dialog, reply("deny"))).toMatchObject({ ok: true, option: { number: 4, label: "No" } });
    expect(optionFor(dialog, reply("3"))).toMatchObject({ ok: true, option: { number: 3 } });
    expect(optionFor(dialog, reply("choose", "yes, and switch"))).toMatchObject({ ok: true, option: { number: 3 } });
    expect(optionFor(dialog, reply("choose", "no"))).toMatchObject({ ok: true, option: { number: 4 } });
    expect(optionFor(dialog, reply("choose", "yes"))).toMatchObject({ ok: true, option: { number: 1 } });
  });

  it("refuses what the dialog does not offer, and lists what it does", () => {
    const session = optionFor(dialog, reply("session"));
    expect(session).toMatchObject({ ok: false });
    expect(!session.ok && session.detail).toContain("the dialog does not offer session; it offers: allow = 1. Yes;");
    expect(optionFor(dialog, reply("7"))).toMatchObject({ ok: false, detail: expect.stringContaining("no option 7") });
    expect(optionFor(dialog, reply("choose", "yes, and"))).toMatchObject({
      ok: false,
      detail: expect.stringContaining("2 options start with"),
    });
    expect(optionFor(dialog, reply("deny", "use", "a", "temp", "dir"))).toMatchObject({
      ok: false,
      detail: expect.stringContaining("no message"),
    });
    expect(optionFor(dialog, reply("text", "hello"))).toMatchObject({ ok: false, detail: expect.stringContaining("no free text") });
  });

  it("tells one read of a dialog from another", () => {
    const other = readDialog(
      CLAUDE_SCREEN.map((line) => line.replace("touch approved", "rm -rf build")),
      claude,
    )!;
    expect(sameDialog(dialog, readDialog(CLAUDE_SCREEN, claude)!)).toBe(true);
    expect(sameDialog(dialog, other)).toBe(false);
  });
});

describe("parseReply", () => {
  it.each([
    [["allow"], { ok: true, reply: { kind: "allow" } }],
    [["once"], { ok: true, reply: { kind: "allow" } }],
    [["always"], { ok: true, reply: { kind: "always" } }],
    [["session"], { ok: true, reply: { kind: "session" } }],
    [["deny"], { ok: true, reply: { kind: "deny" } }],
    [["deny", "not", "there"], { ok: true, reply: { kind: "deny", message: "not there" } }],
    [["2"], { ok: true, reply: { kind: "choice", number: 2 } }],
    [["choose", "Allow", "once"], { ok: true, reply: { kind: "choice", label: "Allow once" } }],
    [["text", "use", "port", "8080"], { ok: true, reply: { kind: "text", text: "use port 8080" } }],
    [["show"], { ok: true, show: true }],
  ])("%j", (words, expected) => {
    expect(parseReply(words)).toEqual(expected);
  });

  it.each([[["maybe"]], [["allow", "now"]], [["choose"]], [["text"]], [["0"]], [["show", "me"]]])("refuses %j", (words) => {
    expect(parseReply(words)).toMatchObject({ ok: false, reason: "usage" });
  });
});
