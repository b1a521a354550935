import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../test/records.ts";
import { statuslineFactsReader, statuslinePath, writeStatuslineFacts } from "./statusline-facts.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "statusline-facts-"));
  dirs.push(dir);
  return dir;
}
const facts = { model: { id: "claude-opus-5-5", at: "2026-12-07T01:00:00.000Z" } };

describe("statuslineFactsReader", () => {
  it("reads the facts of a live record whose session's status line ran, and none for another or an ended one", () => {
    const dir = stateDir();
    const record = sampleRecord({ harness: "claude", session_id: "with-facts", status: "idle" });
    expect(writeStatuslineFacts(dir, statuslinePath(dir, "claude", "with-facts"), facts).ok).toBe(true);
    const read = statuslineFactsReader(dir);
    expect(read(record)).toEqual(facts);
    expect(read(sampleRecord({ harness: "claude", session_id: "without", status: "idle" }))).toBeUndefined();
    expect(read({ ...record, status: "ended" })).toBeUndefined();
  });

  it("reads nothing when the directory is missing or empty (the wrapper never ran)", () => {
    const dir = stateDir();
    const record = sampleRecord({ harness: "claude", session_id: "s", status: "idle" });
    expect(statuslineFactsReader(dir)(record)).toBeUndefined();
    mkdirSync(join(dir, "statusline"));
    expect(statuslineFactsReader(dir)(record)).toBeUndefined();
  });
});
