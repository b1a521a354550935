// Writing the block into tmux.conf goes through the installer's safe writer (src/install/file-edit.ts).
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BEGIN, withBlock, withoutBlock } from "../../backends/tmux/setup.ts";
import { writeConf } from "./tmux-setup.ts";

const body = ["bind-key a display-message hello"];

describe("writing tmux.conf", () => {
  it("writes through a symlinked tmux.conf (a dotfile manager's link stays a link) and gives the file back on removal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tongs-tmuxconf-"));
    try {
      writeFileSync(join(dir, "dotfiles-tmux.conf"), "set -g mouse on\n");
      symlinkSync(join(dir, "dotfiles-tmux.conf"), join(dir, ".tmux.conf"));
      const link = join(dir, ".tmux.conf");
      const before = readFileSync(link, "utf8");
      expect(await writeConf(link, before, withBlock(before, body))).toEqual({ ok: true });
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(dir, "dotfiles-tmux.conf"), "utf8")).toContain(BEGIN);
      const written = readFileSync(link, "utf8");
      expect(await writeConf(link, written, withoutBlock(written).text)).toEqual({ ok: true });
      expect(readFileSync(join(dir, "dotfiles-tmux.conf"), "utf8")).toBe("set -g mouse on\n");
      // A file that changed since it was read is not overwritten.
      expect(await writeConf(link, "something else\n", "x\n")).toMatchObject({ ok: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
