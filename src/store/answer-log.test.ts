import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import { answersOf, recordAnswer, type AnswerEntry } from "./answer-log.ts";

const ID = `fleet:v1:claude:${"c".repeat(64)}`;
const entry = (option: number): AnswerEntry => ({
  at: `2026-12-07T01:0${option % 10}:00.000Z`,
  by: "tongs-agents answer",
  wait: "0123456789ab",
  reply: "allow",
  option,
  channel: "keys",
});

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.cleanup());

describe("the answer log", () => {
  it("keeps the last answers of a record, oldest first", () => {
    for (let option = 1; option <= 10; option++) expect(recordAnswer(sandbox.stateDir, ID, entry(option))).toEqual({ ok: true });
    expect(answersOf(sandbox.stateDir, ID).map((kept) => kept.option)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(answersOf(sandbox.stateDir, `fleet:v1:claude:${"d".repeat(64)}`)).toEqual([]);
  });

  it("reads a file it did not write as no answers, and starts over", () => {
    mkdirSync(join(sandbox.stateDir, "answers"), { recursive: true });
    writeFileSync(join(sandbox.stateDir, "answers", "c".repeat(64)), '[{"at":"x","by":"\\u001b[2J","wait":"no"}]');
    expect(answersOf(sandbox.stateDir, ID)).toEqual([]);
    expect(recordAnswer(sandbox.stateDir, ID, entry(1))).toEqual({ ok: true });
    expect(answersOf(sandbox.stateDir, ID)).toEqual([entry(1)]);
  });

  it("refuses what is not a canonical id", () => {
    expect(recordAnswer(sandbox.stateDir, "discovered:claude:12", entry(1))).toMatchObject({ ok: false });
  });
});
