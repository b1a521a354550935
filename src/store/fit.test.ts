import { describe, expect, it } from "vitest";
import { sampleRecord } from "../../test/records.ts";
import { LIMITS } from "../core/bounds.ts";
import type { HistoryEntry, SessionRecord } from "../core/schema.ts";
import { fitted, writtenBytes } from "./fit.ts";

describe("the 64 KiB record bound", () => {
  it("a record at every field's bound, with text JSON must escape, is trimmed of history and running tools to fit", () => {
    // Control characters take six bytes each in JSON: a full terminal map alone is then about 200 KB.
    const escaped = (bytes: number) => "\u0001".repeat(bytes);
    const env = Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`VAR_${index}`, escaped(1024)]));
    const entry: HistoryEntry = {
      at: "2026-11-29T11:00:00.000Z",
      source: "hook",
      event: "claude.tool-done",
      status: "waiting",
      change: escaped(LIMITS.historyTextBytes),
    };
    const record: SessionRecord = sampleRecord({
      cwd: escaped(2048),
      terminal: { env },
      history: Array(LIMITS.historyEntries).fill(entry),
      running_tools: Array.from({ length: LIMITS.runningTools }, (_, index) => ({ id: `toolu_${index}`, tool: escaped(200) })),
      pending: [
        {
          kind: "permission",
          tool: "Bash",
          detail: "permission: Bash",
          candidates: ["toolu_1"],
          since: entry.at,
          event: "claude.permission-request",
        },
      ],
    });
    expect(writtenBytes(record)).toBeGreaterThan(LIMITS.recordBytes);
    const fit = fitted(record);
    expect(writtenBytes(fit)).toBeLessThanOrEqual(LIMITS.recordBytes);
    expect(fit.pending).toEqual(record.pending);
    expect(fit.terminal).toEqual(record.terminal);
    expect(fit.history?.length ?? 0).toBeLessThan(LIMITS.historyEntries);
  });

  it("leaves a record that fits as it is", () => {
    const record = sampleRecord({
      history: [{ at: "2026-11-29T11:00:00.000Z", source: "hook", event: "claude.stop", status: "idle", change: "running -> idle" }],
    });
    expect(fitted(record)).toBe(record);
  });
});
