// The keypress verbs (`focus`, `next`, the picker) and the status line start as fast as their bundles let them: what
// they load at start-up is declared in scripts/build.mjs, and this test holds the bundles to it (docs/benchmarks.md).
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digestOf } from "../src/core/identity.ts";
import { readRecord, recordPath } from "../src/store/records.ts";
import { ROOT, runCliProcess } from "./processes.ts";
import { writeLiveRecord } from "./records.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";

interface Meta {
  outputs: Record<string, { bytes: number; inputs: Record<string, unknown> }>;
}

const meta = (name: string): Meta => JSON.parse(readFileSync(join(ROOT, `.cache/${name}.meta.json`), "utf8")) as Meta;
const inputsOf = (build: Meta, output: string): string[] => Object.keys(build.outputs[output]?.inputs ?? {});

describe("the keypress bundles", () => {
  const verbs = meta("verbs");

  it.each(["focus", "next", "pick", "status"])(
    "%s carries no record lock: a fact written back loads dist/cli/lazy/transaction.cjs",
    (verb) => {
      const inputs = inputsOf(verbs, `dist/cli/verbs/${verb}.cjs`);
      expect(inputs).toContain("src/fleet/stated.ts");
      for (const heavy of [
        "node_modules/proper-lockfile",
        "node_modules/graceful-fs",
        "src/store/transaction.ts",
        "src/store/record-lock.ts",
      ])
        expect(inputs.filter((input) => input.includes(heavy))).toEqual([]);
    },
  );

  it("the picker's first screen carries no focus backend, no SSH host code and no answer service: each is a bundle of its own", () => {
    const inputs = inputsOf(verbs, "dist/cli/verbs/pick.cjs");
    expect(inputs).toContain("src/picker/tui.ts");
    expect(
      inputs.filter(
        (input) =>
          input.startsWith("backends/") ||
          input.startsWith("src/hosts/") ||
          input.startsWith("src/answer/") ||
          input === "src/cli/pick-hosts.ts",
      ),
    ).toEqual([]);
    const lazy = meta("lazy");
    expect(inputsOf(lazy, "dist/cli/lazy/pick-hosts.cjs")).toEqual(
      expect.arrayContaining(["src/cli/pick-hosts.ts", "src/hosts/focus.ts", "backends/tmux/backend.ts"]),
    );
    expect(inputsOf(lazy, "dist/cli/lazy/focus.cjs")).toContain("backends/tmux/backend.ts");
    expect(inputsOf(lazy, "dist/cli/lazy/answer.cjs")).toEqual(
      expect.arrayContaining(["src/answer/service.ts", "backends/tmux/capture.ts"]),
    );
    expect(inputsOf(lazy, "dist/cli/lazy/preview.cjs")).toEqual(
      expect.arrayContaining(["src/focus/preview.ts", "backends/tmux/capture.ts"]),
    );
  });

  it("the lazily required transaction bundle is built, and carries the lock", () => {
    expect(inputsOf(meta("lazy"), "dist/cli/lazy/transaction.cjs")).toContain("src/store/record-lock.ts");
  });
});

describe("the built `status` at start-up", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => sandbox.cleanup());

  it("lists sessions without loading node:child_process (nor dgram, which it brings)", async () => {
    await writeLiveRecord(sandbox.stateDir, "s1", { env: {} }, "/w", { status: "running" });
    // Node's own list of the built-in modules this process loaded, written as it exits. (Its stdout is a pipe, as in
    // tmux's status line: that loads net.)
    const preload = join(sandbox.root, "loaded.cjs");
    const loaded = join(sandbox.root, "loaded.json");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));\n`,
    );
    const run = await runCliProcess(["status", "--format", "plain"], { ...sandbox.env, NODE_OPTIONS: `--require ${preload}` });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).not.toBe("");
    const modules = JSON.parse(readFileSync(loaded, "utf8")) as string[];
    expect(modules).toContain("NativeModule fs");
    expect(modules.filter((name) => /^NativeModule (child_process|dgram)$/.test(name))).toEqual([]);
  });
});

describe("a fact the harness wrote, found by the built `status`", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => sandbox.cleanup());

  it("is applied to the record through the lazily required transaction bundle (Esc in Claude Code ends the turn)", async () => {
    const session = "64b94903-22ef-4f6c-899c-87be1ef87b9b";
    const lines = readFileSync(join(ROOT, "src/harnesses/claude/fixtures/transcript-interrupted.jsonl"), "utf8").trim().split("\n");
    const transcript = join(sandbox.home, ".claude", "projects", "-w", `${session}.jsonl`);
    mkdirSync(join(transcript, ".."), { recursive: true });
    writeFileSync(transcript, `${lines.slice(0, 3).join("\n")}\n`);
    const started = new Date(Date.now() - 10_000).toISOString();
    const id = await writeLiveRecord(sandbox.stateDir, session, { env: {} }, "/w", {
      status: "running",
      last_event: "claude.tool-use",
      created_at: started,
      updated_at: started,
      status_changed_at: started,
      transcript_path: transcript,
    });
    const interrupted = { ...JSON.parse(lines.at(-1) as string), timestamp: new Date(Date.now() - 5_000).toISOString() };
    appendFileSync(transcript, `${JSON.stringify(interrupted)}\n`);

    const run = await runCliProcess(["status", "--format", "plain"], sandbox.env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const read = readRecord(recordPath(join(sandbox.stateDir, "sessions"), digestOf(id) as string), Date.now());
    expect(read).toMatchObject({ kind: "record", record: { status: "idle", last_event: "claude.interrupted" } });
  });
});
