import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { DD_COPIER_MARK, markShimCopier } from "./shim-copier.ts";

let sandbox: Sandbox;
let spool: string;
beforeEach(() => {
  sandbox = makeSandbox("tongs-shim-copier-");
  spool = join(sandbox.root, "incoming");
  mkdirSync(spool, { mode: 0o700 });
});
afterEach(() => sandbox.cleanup());

/** A PATH whose only dd is this script. */
function fakeDd(script: string): void {
  const bin = join(sandbox.root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "dd"), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, "dd"), 0o755);
  vi.stubEnv("PATH", bin);
}

describe("which program the hook shim copies a payload with", () => {
  it("marks dd where it copies exactly the byte count asked (GNU dd, here)", () => {
    expect(markShimCopier(spool)).toBe(true);
    expect(existsSync(join(spool, DD_COPIER_MARK))).toBe(true);
  });

  it.each([
    ["rejects iflag=count_bytes (exit 1)", 'echo "dd: invalid input flag" >&2; exit 1'],
    ["counts blocks, not bytes (copies all)", "/bin/cat"],
  ])("leaves no mark, and removes an old one, where dd %s", (_, script) => {
    writeFileSync(join(spool, DD_COPIER_MARK), "");
    fakeDd(script);
    expect(markShimCopier(spool)).toBe(false);
    expect(existsSync(join(spool, DD_COPIER_MARK))).toBe(false);
  });

  it("leaves no mark where there is no dd at all", () => {
    vi.stubEnv("PATH", join(sandbox.root, "nowhere"));
    expect(markShimCopier(spool)).toBe(false);
    expect(existsSync(join(spool, DD_COPIER_MARK))).toBe(false);
  });
});
