import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeProcessSource } from "../../test/fake-processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { INSTALLABLE_IDS } from "../harnesses/registry.ts";
import type { CliContext } from "./context.ts";
import { VERB_NAMES, runCli } from "./run.ts";

let sandbox: Sandbox;
let context: CliContext;
beforeEach(() => {
  sandbox = makeSandbox();
  context = { env: sandbox.env, stateDir: sandbox.stateDir, cwd: sandbox.root, processes: fakeProcessSource([]), now: Date.now };
});
afterEach(() => sandbox.cleanup());

/** What the shells' scripts ask on Tab: the candidates for the last word of `line` (split at spaces, bash-style). */
async function complete(line: string): Promise<string[]> {
  const words = line.split(" ");
  const out: string[] = [];
  const code = await runCli(["completion", "--complete", String(words.length - 1), "--", ...words], context, {
    stdout: (text) => out.push(text),
    stderr: (text) => out.push(`stderr: ${text}`),
    color: false,
    columns: 80,
  });
  expect(code).toBe(0);
  return out.sort();
}

describe("completion --complete", () => {
  it("verbs, each verb's options from its synopsis, and the values its synopsis lists", async () => {
    expect(await complete("tongs-agents ")).toEqual([...VERB_NAMES].sort());
    expect(await complete("tongs-agents --")).toEqual(["--color", "--help", "--version"]);
    expect(await complete("tongs-agents un")).toEqual(["uninstall"]);
    expect(await complete("tongs-agents wait --")).toEqual(["--color", "--help", "--json", "--local", "--timeout", "--until"]);
    expect(await complete("tongs-agents wait x --until e")).toEqual(["ended", "error"]);
    expect(await complete("tongs-agents install --hook ")).toEqual(["shim", "sync"]);
    expect(await complete("tongs-agents uninstall --agent ")).toEqual([...INSTALLABLE_IDS, "all"].sort());
    expect(await complete("tongs-agents list --color ")).toEqual(["always", "auto", "never"]);
    expect(await complete("tongs-agents focus --client ")).toEqual([]); // a free value: the shell's own completion
    expect(await complete("tongs-agents hosts ")).toEqual(["add", "list", "remove"]);
    expect(await complete("tongs-agents hosts add ")).toEqual([]);
    expect(await complete("tongs-agents completion z")).toEqual(["zsh"]);
  });

  it("the words after -- are the shell's: --help and --color among them are completed, not obeyed", async () => {
    expect(await complete("tongs-agents list --help --co")).toEqual(["--color"]);
    expect(await complete("tongs-agents --color=never li")).toEqual(["list"]);
  });

  it("the script for each shell calls it back; another shell is a usage error naming the near one", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const out: string[] = [];
      expect(
        await runCli(["completion", shell], context, {
          stdout: (text) => out.push(text),
          stderr: () => undefined,
          color: false,
          columns: 80,
        }),
      ).toBe(0);
      expect(out.join("\n")).toContain("tongs-agents completion --complete");
    }
    const err: string[] = [];
    expect(
      await runCli(["completion", "zhs"], context, {
        stdout: () => undefined,
        stderr: (text) => err.push(text),
        color: false,
        columns: 80,
      }),
    ).toBe(2);
    expect(err).toEqual(['tongs-agents: completion takes bash, zsh or fish, not "zhs"; did you mean zsh?']);
  });
});
