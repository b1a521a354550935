// The installer's file writer against edits that land while it writes: each case puts the edit at one point of the
// write through the writer's test seam (a real racing editor is in test/adversarial/installer.test.ts), and ownership.
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  ftruncateSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { creationTarget, deleteConfigFile, readConfigFile, writeConfigFile } from "./file-edit.ts";

let sandbox: Sandbox;
let dir: string;
let path: string;
beforeEach(() => {
  sandbox = makeSandbox();
  dir = join(sandbox.home, ".claude");
  mkdirSync(dir, { recursive: true });
  path = join(dir, "settings.json");
});
afterEach(() => sandbox.cleanup());

const PLANNED = '{"model": "opus"}\n';
const OURS = '{"model": "opus", "hooks": {}}\n';
const EDIT = '{"model": "sonnet"}\n';

/** An editor that saves by writing a new file and renaming it over (most editors, and the harnesses themselves). */
function saveByRename(text: string): void {
  writeFileSync(`${path}.editor`, text);
  renameSync(`${path}.editor`, path);
}

/** Only the config file is left in its directory: no temp file, witness or marker of ours. */
function expectNoLeftovers(): void {
  expect(readdirSync(dir)).toEqual(["settings.json"]);
}

describe("writeConfigFile: an edit racing the write", () => {
  it("replaces the file when nothing else touched it", async () => {
    writeFileSync(path, PLANNED);
    expect(await writeConfigFile(path, PLANNED, OURS)).toEqual({ ok: true });
    expect(readFileSync(path, "utf8")).toBe(OURS);
    expectNoLeftovers();
  });

  it.each([
    ["in place", (text: string) => writeFileSync(path, text)],
    ["by rename", saveByRename],
  ])("an edit saved %s after the new text is staged, before the rename, is kept: compared again at the last moment", async (_how, save) => {
    writeFileSync(path, PLANNED);
    const result = await writeConfigFile(path, PLANNED, OURS, { probe: (point) => point === "staged" && save(EDIT) });
    expect(result).toMatchObject({ ok: false, detail: expect.stringContaining("changed since the plan was made; nothing written") });
    expect(readFileSync(path, "utf8")).toBe(EDIT);
    expectNoLeftovers();
  });

  it("an edit written into the old file during the rename (by an editor that had it open) is put back, and the write fails", async () => {
    writeFileSync(path, PLANNED);
    const editor = openSync(path, "r+");
    try {
      const result = await writeConfigFile(path, PLANNED, OURS, {
        probe: (point) => {
          if (point !== "renamed") return;
          ftruncateSync(editor, 0);
          writeSync(editor, EDIT, 0);
        },
      });
      expect(result).toMatchObject({ ok: false, detail: expect.stringContaining("that edit was put back") });
      expect(readFileSync(path, "utf8")).toBe(EDIT);
      expectNoLeftovers();
    } finally {
      closeSync(editor);
    }
  });

  it("a save by rename between the last comparison and the rename is never reported as written", async () => {
    writeFileSync(path, PLANNED);
    const result = await writeConfigFile(path, PLANNED, OURS, { probe: (point) => point === "compared" && saveByRename(EDIT) });
    expect(result).toMatchObject({
      ok: false,
      detail: expect.stringContaining("saved by another program at the moment tongs-agents wrote it"),
    });
    expectNoLeftovers();
  });

  it("a file created after the plan (which found none) is never replaced", async () => {
    const result = await writeConfigFile(path, null, OURS, { probe: (point) => point === "staged" && saveByRename(EDIT) });
    expect(result).toMatchObject({ ok: false, detail: expect.stringContaining("was created since the plan was made") });
    expect(readFileSync(path, "utf8")).toBe(EDIT);
    expectNoLeftovers();
  });

  it("deletes only a file that still holds what was planned", async () => {
    writeFileSync(path, EDIT);
    expect(await deleteConfigFile(path, PLANNED)).toMatchObject({ ok: false, detail: expect.stringContaining("nothing removed") });
    expect(readFileSync(path, "utf8")).toBe(EDIT);
    expect(await deleteConfigFile(path, EDIT)).toEqual({ ok: true });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("writeConfigFile: owner and mode", () => {
  it("keeps every permission bit of a rewritten file, whatever the umask", async () => {
    writeFileSync(path, PLANNED);
    chmodSync(path, 0o664);
    expect(await writeConfigFile(path, PLANNED, OURS)).toEqual({ ok: true });
    expect(statSync(path).mode & 0o7777).toBe(0o664);
  });

  // Root installing into another user's HOME (sudo with HOME kept, provisioning scripts): that user's agents must still
  // read their config. CI runs as root, like this machine; uid 4242 needs no account.
  const asRoot = process.getuid?.() === 0;

  it("keeps the owner of a rewritten file that belongs to another user (run as root)", async () => {
    expect(asRoot, "this test needs root, as CI has").toBe(true);
    writeFileSync(path, PLANNED);
    chmodSync(path, 0o640);
    chownSync(path, 4242, 4343);
    expect(await writeConfigFile(path, PLANNED, OURS)).toEqual({ ok: true });
    expect(statSync(path)).toMatchObject({ uid: 4242, gid: 4343 });
    expect(statSync(path).mode & 0o7777).toBe(0o640);
  });

  it("gives new files and directories under another user's home to that user (run as root)", async () => {
    expect(asRoot, "this test needs root, as CI has").toBe(true);
    chownSync(sandbox.home, 4242, 4343);
    const created = join(sandbox.home, ".codex", "sub", "hooks.json");
    expect(await writeConfigFile(created, null, OURS)).toEqual({ ok: true });
    for (const made of [join(sandbox.home, ".codex"), join(sandbox.home, ".codex", "sub"), created])
      expect(statSync(made)).toMatchObject({ uid: 4242, gid: 4343 });
    expect(statSync(created).mode & 0o777).toBe(0o600);
  });
});

describe("a dotfile manager's links", () => {
  it("a link to a file not there yet: the file is created where it points, the link kept; removed the same way", async () => {
    const target = join(sandbox.root, "dotfiles", "settings.json");
    mkdirSync(join(sandbox.root, "dotfiles"));
    // A relative link, resolved from the link's own directory, as the kernel does.
    symlinkSync(join("..", "..", "dotfiles", "settings.json"), path);
    expect(await writeConfigFile(path, null, OURS)).toEqual({ ok: true });
    expect(readFileSync(target, "utf8")).toBe(OURS);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(deleteConfigFile(path, OURS)).toEqual({ ok: true });
    expect(existsSync(target)).toBe(false);
    expect(readlinkSync(path)).toBe(join("..", "..", "dotfiles", "settings.json"));
  });

  it("a link whose target's directory is missing: nothing made, and what to do", async () => {
    const target = join(sandbox.root, "dotfiles", "claude", "settings.json");
    symlinkSync(target, path);
    expect(creationTarget(path)).toEqual({ ok: false, detail: expect.stringContaining(`${path} is a symbolic link to ${target}`) });
    const written = await writeConfigFile(path, null, OURS);
    expect(written).toEqual({
      ok: false,
      detail: expect.stringMatching(/nor does its directory .*; nothing written: create that directory .* then run the command again$/),
    });
    expect(existsSync(join(sandbox.root, "dotfiles"))).toBe(false);
  });

  it("a chain of links ends at the file to create; a loop is refused in words", () => {
    const target = join(dir, "real.json");
    symlinkSync(target, join(dir, "middle.json"));
    symlinkSync(join(dir, "middle.json"), path);
    expect(creationTarget(path)).toEqual({ ok: true, target });
    const loop = join(dir, "loop.json");
    symlinkSync(loop, loop);
    expect(creationTarget(loop)).toEqual({ ok: false, detail: expect.stringContaining("its symbolic links lead in a loop") });
    expect(readConfigFile(loop)).toEqual({ ok: false, detail: `${loop}: its symbolic links lead in a loop (ELOOP)` });
  });
});
