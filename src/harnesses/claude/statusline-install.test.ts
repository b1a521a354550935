// The optional status-line wrapper in Claude Code's settings.json, against real files in a sandboxed HOME: what the
// plan says, the user's status line wrapped so that it gets the same input and shows the same, and uninstall writing
// back the user's bytes exactly.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { json, put, useInstallFixture } from "../../../test/install-fixture.ts";
import { readText } from "../../../test/install-world.ts";
import { runInstaller } from "../../install/installer.ts";
import { installersFor } from "../installers.ts";
import { STATUSLINE_OPTION, parseWrapper, wrapperCommand } from "./statusline-install.ts";

const fixture = useInstallFixture();
const run = async (mode: "install" | "uninstall", options: string[] = [STATUSLINE_OPTION], dryRun = false) =>
  runInstaller(fixture.world, { harnesses: await installersFor(["claude"]), mode, dryRun, options });

// The user's own status line, spelt as people write it (a quote and a `$` the shell must keep).
const USER_LINE = `{
  "model": "opus",
  "statusLine": {"type": "command", "command": "printf '%s' \\"$(cat | head -c 20)\\" && echo ' mine'", "padding": 0}
}
`;

describe("Claude Code status-line wrapper (install --claude-statusline)", () => {
  it("wraps the user's status line: it gets the same input and shows the same; the plan says so; uninstall restores it byte for byte", async () => {
    put(fixture.settings, USER_LINE);
    const before = readFileSync(fixture.settings);
    const planned = await run("install", [STATUSLINE_OPTION], true);
    const step = planned.harnesses[0]?.steps.find((entry) => entry.path === fixture.settings);
    expect(step?.why?.join("\n")).toContain("wrap your status line command: it gets the same input and shows the same");
    expect(readFileSync(fixture.settings)).toEqual(before);

    expect((await run("install")).ok).toBe(true);
    const line = json(fixture.settings).statusLine;
    expect(line).toMatchObject({ type: "command", padding: 0 });
    const original = JSON.parse(USER_LINE).statusLine.command as string;
    expect(parseWrapper(line.command)).toEqual({
      node: fixture.world.nodePath,
      script: join(fixture.root, "dist", "statusline.cjs"),
      then: original,
    });
    // Claude Code runs the command through a shell: the user's command comes back out of it word for word.
    const words = execFileSync("/bin/sh", ["-c", `set -- ${line.command.slice(line.command.indexOf(" "))}; printf '%s\\n' "$@"`], {
      encoding: "utf8",
    });
    expect(words.trimEnd().split("\n").slice(-2)).toEqual(["--then", original]);
    // Idempotent.
    const installed = readText(fixture.settings);
    expect((await run("install")).harnesses[0]?.steps.filter((entry) => entry.path === fixture.settings)).toEqual([]);
    // A later install without the option keeps it (it is removed by uninstall only).
    await run("install", []);
    expect(json(fixture.settings).statusLine.command).toBe(line.command);
    expect(readText(fixture.settings)).toBe(installed);

    expect((await run("uninstall", [])).ok).toBe(true);
    expect(readFileSync(fixture.settings)).toEqual(before);
  });

  it("with no status line of the user's, adds one that shows nothing, and uninstall removes it (the file as before)", async () => {
    put(fixture.settings, `{\n  "model": "opus"\n}\n`);
    const before = readFileSync(fixture.settings);
    await run("install");
    expect(json(fixture.settings).statusLine).toEqual({
      type: "command",
      command: wrapperCommand(fixture.world.nodePath, fixture.root, undefined),
    });
    await run("uninstall", []);
    expect(readFileSync(fixture.settings)).toEqual(before);
  });

  it("leaves alone a status line it could not write back exactly, and one that is not a command, saying why", async () => {
    put(fixture.settings, `{"statusLine": {"type": "command", "command": "echo \\u0041"}}\n`);
    const escaped = await run("install");
    expect(json(fixture.settings).statusLine.command).toBe("echo A");
    expect(escaped.harnesses[0]?.findings.map((finding) => finding.message).join("\n")).toContain(
      "could not be written back byte for byte",
    );
    put(fixture.settings, `{"statusLine": {"type": "static", "text": "hi"}}\n`);
    const other = await run("install");
    expect(json(fixture.settings).statusLine).toEqual({ type: "static", text: "hi" });
    expect(other.harnesses[0]?.findings.map((finding) => finding.message).join("\n")).toContain("statusLine is not a command");
  });

  it("is not written without the option", async () => {
    await run("install", []);
    expect(existsSync(fixture.settings) && json(fixture.settings).statusLine).toBeFalsy();
  });
});
