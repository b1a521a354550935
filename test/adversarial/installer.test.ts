// The real installer on temp HOMEs: round trips over generated user files (install, install again, uninstall gives
// every file back byte for byte), and a user's editor racing the installer on settings.json (a real process saving by
// rename or in place at random moments of the install): an edit may be kept or refused, never silently replaced.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInstaller } from "../../src/install/installer.ts";
import type { HarnessId, InstallReport } from "../../src/install/plan.ts";
import { makePackageRoot, makeWorld } from "../install-world.ts";
import { ROOT } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { ms, printFigures } from "./support.ts";
import { installersFor } from "../../src/harnesses/installers.ts";

const SEED = Number(process.env.TONGS_AGENTS_FUZZ_SEED ?? Date.now() % 2 ** 31);
const ROUND_TRIPS = 60;
/** TONGS_AGENTS_RACING_EDITS=<n> runs a longer stress of the same test (docs/reliability.md quotes one). */
const RACING_EDITS = Number(process.env.TONGS_AGENTS_RACING_EDITS ?? 200);

let sandbox: Sandbox;
let packageRoot: string;
beforeAll(() => {
  sandbox = makeSandbox("tongs-adv-install-");
  packageRoot = makePackageRoot(join(sandbox.root, "package"));
});
afterAll(() => sandbox.cleanup());

/** A fresh HOME under the sandbox, with the harness config dirs the sandbox's environment names pointing into it. */
function home(name: string) {
  const dir = join(sandbox.root, name);
  mkdirSync(dir, { recursive: true });
  const world = makeWorld(
    { ...sandbox, home: dir, env: { ...sandbox.env, HOME: dir, CLAUDE_CONFIG_DIR: join(dir, ".claude"), CODEX_HOME: join(dir, ".codex") } },
    { packageRoot },
  );
  const files = {
    settings: join(dir, ".claude", "settings.json"),
    claudeJson: join(dir, ".claude", ".claude.json"),
    hooksJson: join(dir, ".codex", "hooks.json"),
    configToml: join(dir, ".codex", "config.toml"),
  };
  const install = async (mode: "install" | "uninstall", harnesses: HarnessId[] = ["claude", "codex"]): Promise<InstallReport> =>
    runInstaller(world, { harnesses: await installersFor(harnesses), dryRun: false, mode, options: [] });
  return { dir, world, files, install };
}

const CLAUDE_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "Notification", "PreCompact", "SubagentStop"];
const CODEX_EVENTS = ["SessionStart", "Stop", "PreToolUse", "PostToolUse", "UserPromptSubmit"];

/** A user's hooks object: events (ours among them) with groups of their own commands. Never an empty list or object. */
function userHooks(events: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const command = fc.record(
    {
      type: fc.constant("command"),
      command: fc.string({ minLength: 1, maxLength: 30 }),
      timeout: fc.option(fc.nat({ max: 600 }), { nil: undefined }),
    },
    { requiredKeys: ["type", "command"] },
  );
  const group = fc.record(
    { matcher: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }), hooks: fc.array(command, { minLength: 1, maxLength: 2 }) },
    { requiredKeys: ["hooks"] },
  );
  return fc.dictionary(fc.constantFrom(...events), fc.array(group, { minLength: 1, maxLength: 2 }), { minKeys: 1, maxKeys: 4 });
}

/** A user's JSON config: their own keys in any order, maybe hooks; printed compact, with 2 or 4 spaces or tabs, CRLF or not. */
function userJson(events: readonly string[]): fc.Arbitrary<string> {
  const own = fc.dictionary(
    fc.string({ maxLength: 12 }).filter((key) => key !== "hooks" && key !== "mcpServers" && key !== "__proto__"),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 5 },
  );
  return fc
    .tuple(own, fc.option(userHooks(events), { nil: undefined }), fc.nat(), fc.constantFrom(0, 2, 4, "\t"), fc.boolean(), fc.boolean())
    .map(([keys, hooks, at, indent, crlf, newline]) => {
      const entries: [string, unknown][] = Object.entries(keys);
      if (hooks) entries.splice(at % (entries.length + 1), 0, ["hooks", hooks]);
      const text = JSON.stringify(Object.fromEntries(entries), null, indent) + (newline ? "\n" : "");
      return crlf ? text.replace(/\n/g, "\r\n") : text;
    });
}

/** A user's config.toml: comments, keys and tables of their own (an MCP server among them, sometimes). */
const userToml: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), fc.string({ maxLength: 20 })), { maxLength: 4 }),
    fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), fc.string({ maxLength: 20 })), { maxLength: 3 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([keys, tables, comment, server]) => {
    const unique = <T extends [string, string]>(pairs: T[]) => [...new Map(pairs).entries()];
    const lines = comment ? ["# my codex config"] : [];
    for (const [key, value] of unique(keys)) lines.push(`${key} = ${JSON.stringify(value)}`);
    if (server) lines.push("", "[mcp_servers.mine]", 'command = "my-server"');
    for (const [table, value] of unique(tables)) lines.push("", `[t_${table}]`, `value = ${JSON.stringify(value)}`);
    return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  });

const userFiles = fc.record({
  settings: fc.option(userJson(CLAUDE_EVENTS), { nil: undefined }),
  hooksJson: fc.option(userJson(CODEX_EVENTS), { nil: undefined }),
  configToml: fc.option(userToml, { nil: undefined }),
});

describe("installer round trips", () => {
  it(`${ROUND_TRIPS} generated homes: install, install again (nothing to do), uninstall gives every file back byte for byte`, async () => {
    const samples = fc.sample(userFiles, { numRuns: ROUND_TRIPS, seed: SEED });
    const failures: unknown[] = [];
    let refused = 0;
    const started = performance.now();
    for (const [index, sample] of samples.entries()) {
      const { files, install } = home(`trip-${index}`);
      const written: Record<string, string> = {};
      for (const [key, text] of Object.entries(sample)) {
        if (text === undefined) continue;
        const path = files[key as keyof typeof files];
        mkdirSync(join(path, ".."), { recursive: true });
        writeFileSync(path, text);
        written[path] = text;
      }
      const first = await install("install");
      if (!first.ok) {
        // A file the installer may not edit (e.g. hooks of a shape it does not own) is left untouched and said so.
        refused++;
        const untouched = Object.entries(written).filter(
          ([path, text]) => readFileSync(path, "utf8") !== text && first.harnesses.every((harness) => harness.findings.length === 0),
        );
        if (untouched.length > 0)
          failures.push({ index, sample, step: "refused but changed", findings: first.harnesses.map((harness) => harness.findings) });
        continue;
      }
      const again = await install("install");
      const removal = await install("uninstall");
      const changed = Object.entries(written).filter(([path, text]) => readFileSync(path, "utf8") !== text);
      const problems = [
        ...(again.harnesses.some((harness) => harness.steps.length > 0) ? ["a second install had steps"] : []),
        ...(removal.ok ? [] : [`uninstall failed: ${JSON.stringify(removal.harnesses.map((harness) => harness.findings))}`]),
        ...changed.map(([path]) => `${path} not given back byte for byte`),
      ];
      if (problems.length > 0)
        failures.push({ index, sample, problems, after: Object.fromEntries(changed.map(([path]) => [path, readFileSync(path, "utf8")])) });
    }
    printFigures("installer round trips", {
      seed: SEED,
      "generated homes": ROUND_TRIPS,
      "files of the user's": samples.reduce(
        (count, sample) => count + Object.values(sample).filter((text) => text !== undefined).length,
        0,
      ),
      "installs refused with a reason": refused,
      "round trips not byte for byte": failures.length,
      "total time": ms(performance.now() - started),
    });
    expect(failures).toEqual([]);
  });
});

describe("installer racing edits", () => {
  it(
    `${RACING_EDITS} edits saved by a real editor process at random moments of an install: none silently replaced`,
    { timeout: 120_000 + RACING_EDITS * 500 },
    async () => {
      const { files, install } = home("racing");
      mkdirSync(join(files.settings, ".."), { recursive: true });
      const userText = (label: string) => `{\n  "model": "${label}",\n  "permissions": {"allow": ["Bash(ls:*)"]}\n}\n`;
      // How long an install takes here, so that the edits land all over it (the first one, which also creates
      // .claude.json, is left out).
      const calibration: number[] = [];
      for (let round = 0; round < 6; round++) {
        writeFileSync(files.settings, userText("calibrating"));
        const started = performance.now();
        await install("install", ["claude"]);
        calibration.push(performance.now() - started);
      }
      const span = Math.max(...calibration.slice(1));
      const editor = spawn(process.execPath, [join(ROOT, "test/adversarial/fixtures/racing-editor.mjs")], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      const saved = createInterface({ input: editor.stdout })[Symbol.asyncIterator]();
      const counts = {
        "edit read by the plan (kept, ours added)": 0,
        "edit saved after our write (kept)": 0,
        "install refused: changed since the plan (edit kept)": 0,
        "edit lost, install reported failure": 0,
        "edit lost, install reported success": 0,
      };
      const silent: unknown[] = [];
      try {
        for (let round = 0; round < RACING_EDITS; round++) {
          writeFileSync(files.settings, userText(`planned-${round}`));
          const mode = round % 2 === 0 ? "rename" : "in-place";
          const edit = userText(`edit-${round}`);
          editor.stdin.write(`${JSON.stringify({ path: files.settings, text: edit, mode, delayUs: Math.random() * span * 1000 })}\n`);
          const report = await install("install", ["claude"]);
          await saved.next();
          const step = report.harnesses[0]?.steps.find((entry) => entry.path === files.settings);
          const final = readFileSync(files.settings, "utf8");
          const kept = final.includes(`"edit-${round}"`);
          const ours = final.includes("tongs-agents-hook");
          if (kept && ours) counts["edit read by the plan (kept, ours added)"]++;
          else if (kept && step?.status === "done") counts["edit saved after our write (kept)"]++;
          else if (kept) counts["install refused: changed since the plan (edit kept)"]++;
          else if (step?.status === "done") {
            counts["edit lost, install reported success"]++;
            silent.push({ round, mode, step, final });
          } else counts["edit lost, install reported failure"]++;
        }
      } finally {
        editor.stdin.end();
        editor.kill();
      }
      printFigures("installer racing edits", {
        "racing edits (half by rename, half in place)": RACING_EDITS,
        "an install here takes": ms(span),
        ...counts,
      });
      expect(silent).toEqual([]);
      expect(existsSync(`${files.settings}.editor-swap`)).toBe(false);
    },
  );
});
