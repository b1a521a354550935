// The status-line wrapper as Claude Code runs it (the built dist/statusline.cjs, a real process), fed the status-line
// input Claude Code 2.1.332 gave a status line in a live interactive run on the synthetic provider (fixtures/
// statusline-*.json: after a reply with 42% of the 5-hour window used, and after the 429 that spent it; paths rewritten).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT } from "../../test/processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { readStatuslineFacts, statuslinePath } from "../store/statusline-facts.ts";
import { statuslineFactsOf } from "./statusline.ts";

const FIXTURES = join(ROOT, "src", "harnesses", "claude", "fixtures");
const input = (name: string) => readFileSync(join(FIXTURES, `statusline-${name}.json`));
const SESSION = "87aa337b-0d49-434a-8e8f-0f36d7170a69";
const AT = "2026-12-07T01:45:00.000Z";

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.cleanup());

const wrap = (stdin: Buffer, then?: string) =>
  spawnSync(process.execPath, [join(ROOT, "dist", "statusline.cjs"), ...(then === undefined ? [] : ["--then", then])], {
    input: stdin,
    env: sandbox.env,
    encoding: "utf8",
    timeout: 10_000,
  });

describe("what Claude Code states to a status line", () => {
  it("the model (after /model), the context window and what is in it, both quota windows with their resets", () => {
    expect(statuslineFactsOf(JSON.parse(input("input").toString()), AT)).toEqual({
      sessionId: SESSION,
      facts: {
        model: { id: "claude-opus-5-5", at: AT },
        context: { used: 10, window: 1_000_000, percent: 0, at: AT },
        windows: [
          { name: "five_hour", used_percent: 42, resets_at: "2026-12-07T02:44:17.000Z", at: AT },
          { name: "seven_day", used_percent: 40, resets_at: "2026-12-08T02:44:17.000Z", at: AT },
        ],
      },
    });
    expect(statuslineFactsOf(JSON.parse(input("limited").toString()), AT)?.facts.windows?.[0]).toMatchObject({ used_percent: 100 });
  });

  it("the wrapper hands the user's command the same bytes: its output and exit code are what Claude Code gets", () => {
    const run = wrap(input("input"), "sha256sum; exit 3");
    expect(run.status).toBe(3);
    const digest = spawnSync("sha256sum", { input: input("input"), encoding: "utf8" }).stdout;
    expect(run.stdout).toBe(digest);
    expect(run.stderr).toBe("");
    const kept = readStatuslineFacts(statuslinePath(sandbox.stateDir, "claude", SESSION));
    expect(kept?.windows?.map((window) => [window.name, window.used_percent])).toEqual([
      ["five_hour", 42],
      ["seven_day", 40],
    ]);
  });

  it("without a command of the user's it prints nothing; input that is not a status-line input keeps nothing", () => {
    expect(wrap(input("limited"))).toMatchObject({ status: 0, stdout: "", stderr: "" });
    expect(readStatuslineFacts(statuslinePath(sandbox.stateDir, "claude", SESSION))?.windows?.[0]?.used_percent).toBe(100);
    expect(wrap(Buffer.from("not json"), "echo mine")).toMatchObject({ status: 0, stdout: "mine\n", stderr: "" });
  });
});
