import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { DEBUG_LOG_FILE } from "../store/paths.ts";
import { appendDebugLog } from "./debug-log.ts";

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.cleanup());

describe("the hook's debug log", () => {
  it("appends one JSON line to a private state dir", () => {
    mkdirSync(sandbox.stateDir, { mode: 0o700 });
    appendDebugLog(sandbox.stateDir, { outcome: "ok" });
    expect(JSON.parse(readFileSync(join(sandbox.stateDir, DEBUG_LOG_FILE), "utf8"))).toMatchObject({ outcome: "ok" });
  });

  it("writes nothing through a symlinked state dir, nor into one the store refuses", () => {
    const target = join(sandbox.root, "elsewhere");
    mkdirSync(target, { mode: 0o700 });
    const linked = join(sandbox.root, "linked-state");
    symlinkSync(target, linked);
    appendDebugLog(linked, { outcome: "ok" });
    expect(existsSync(join(target, DEBUG_LOG_FILE))).toBe(false);
    const open = join(sandbox.root, "shared");
    mkdirSync(open);
    chmodSync(open, 0o1777);
    appendDebugLog(open, { outcome: "ok" });
    expect(existsSync(join(open, DEBUG_LOG_FILE))).toBe(false);
  });
});
