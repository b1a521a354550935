// Node-script identity (Gemini CLI, Qwen Code run as `node <script>`): table cases with a fake file system, then real
// node processes found by the real /proc walk, as the hook finds them.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeScriptArg, runsNodeScript } from "./node-script.ts";
import { findAncestor, linuxProcessSource } from "./proc.ts";

const GEMINI = ["node_modules/@google/gemini-cli/bundle/gemini.js"];

describe("the script a node process runs", () => {
  it.each<[string[], string | undefined]>([
    [["node", "/usr/lib/node_modules/.bin/gemini"], "/usr/lib/node_modules/.bin/gemini"],
    [["/usr/bin/node", "--max-old-space-size=4096", "/x/gemini.js", "-p", "hi"], "/x/gemini.js"],
    [["node22", "--expose-gc", "cli.js"], "cli.js"],
    [["python3", "/x/node_modules/@google/gemini-cli/bundle/gemini.js"], undefined],
    [["node"], undefined],
    [[], undefined],
  ])("%j -> %s", (argv, script) => expect(nodeScriptArg(argv)).toBe(script));

  it("matches the resolved script's path ending, never a name elsewhere among the arguments", () => {
    const realpath = (path: string) => path.replace("/.bin/gemini", "/@google/gemini-cli/bundle/gemini.js");
    expect(runsNodeScript(5, ["node", "/usr/lib/node_modules/.bin/gemini"], GEMINI, { realpath })).toBe(true);
    expect(
      runsNodeScript(5, ["node", "/tmp/other.js", "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js"], GEMINI, { realpath }),
    ).toBe(false);
    expect(runsNodeScript(5, ["node", "/x/not_node_modules/@google/gemini-cli/bundle/gemini.js"], GEMINI, { realpath })).toBe(false);
    expect(runsNodeScript(5, ["node", "/x/node_modules/@google/gemini-cli/bundle/gemini.js"], [], { realpath })).toBe(false);
  });

  it("resolves a relative script against the process's working directory, and misses what it cannot resolve", () => {
    const seen: string[] = [];
    const realpath = (path: string) => {
      seen.push(path);
      if (path.includes("missing")) throw new Error("ENOENT");
      return `/home/u/node_modules/@google/gemini-cli/bundle/gemini.js`;
    };
    expect(runsNodeScript(77, ["node", "node_modules/.bin/gemini"], GEMINI, { realpath, procRoot: "/proc" })).toBe(true);
    expect(seen).toEqual(["/proc/77/cwd/node_modules/.bin/gemini"]);
    expect(runsNodeScript(77, ["node", "missing.js"], GEMINI, { realpath })).toBe(false);
  });
});

describe.runIf(process.platform === "linux")("real node processes", () => {
  let root: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "tongs-node-script-"));
    const bundle = join(root, "node_modules", "@google", "gemini-cli", "bundle");
    mkdirSync(bundle, { recursive: true });
    mkdirSync(join(root, "node_modules", ".bin"));
    writeFileSync(join(bundle, "gemini.js"), "setTimeout(() => {}, 30_000);\n");
    symlinkSync("../@google/gemini-cli/bundle/gemini.js", join(root, "node_modules", ".bin", "gemini"));
    writeFileSync(join(root, "decoy.js"), "setTimeout(() => {}, 30_000);\n");
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });
  const start = (args: string[]) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: "ignore" });
    children.push(child);
    return child.pid as number;
  };
  const find = (pid: number) => findAncestor(pid, [], { source: linuxProcessSource(), deadline: Date.now() + 5000, scripts: GEMINI });

  it("finds node running the bin link, by absolute or relative path and after node options", async () => {
    for (const args of [
      [join(root, "node_modules", ".bin", "gemini")],
      ["node_modules/.bin/gemini"],
      ["--max-old-space-size=512", "node_modules/.bin/gemini"],
    ]) {
      const pid = start(args);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const found = await find(pid);
      expect(found.found && found.process.pid, JSON.stringify(args)).toBe(pid);
    }
  });

  it("does not take node running another script that names the harness's script in its arguments", async () => {
    const pid = start(["decoy.js", realpathSync(join(root, "node_modules", ".bin", "gemini"))]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const found = await find(pid);
    expect(found.found).toBe(false);
  });
});
