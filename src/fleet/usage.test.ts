// What a session states about itself, merged for readers (usage.ts) and put in words for a row (row-words.ts).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sampleRecord } from "../../test/records.ts";
import type { SessionRecord } from "../core/schema.ts";
import type { UsageFacts } from "../core/usage-facts.ts";
import { contextCell, contextWords, limitWhen, quotaWords, rowDetail, stateWord } from "./row-words.ts";
import { usageOf } from "./usage.ts";
import { viewOfRecord } from "./view.ts";

const T0 = "2026-12-07T10:00:00.000Z";
const NOW = Date.parse("2026-12-07T10:30:00.000Z");
let zone: string | undefined;
beforeEach(() => {
  zone = process.env.TZ;
  process.env.TZ = "UTC";
});
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

const record = (overrides: Partial<SessionRecord> = {}): SessionRecord =>
  sampleRecord({ created_at: T0, updated_at: T0, status_changed_at: T0, ...overrides });

const limited = record({
  status: "error",
  detail: "You've hit your 5-hour limit · resets 10:32pm (UTC)",
  limit: { kind: "rate_limit", stated: "rate_limit", message: "You've hit your 5-hour limit · resets 10:32pm (UTC)" },
});

describe("a limit", () => {
  it("takes its reset from the transcript when the hook did not state one, and says when it resets", () => {
    const transcript: UsageFacts = { limit: { resets_at: "2026-12-07T12:45:00.000Z", window: "five_hour", status: 429, at: T0 } };
    const view = viewOfRecord(limited, { stale: false, reason: "" }, NOW, usageOf(limited, { transcript }, NOW));
    expect(view.limit).toEqual({
      kind: "rate_limit",
      stated: "rate_limit",
      message: limited.detail,
      resets_at: "2026-12-07T12:45:00.000Z",
      window: "five_hour",
      reset_passed: false,
    });
    expect(stateWord(view)).toBe("limited");
    expect(rowDetail(view, NOW)).toBe(`resets 12:45 (in 2 h 15 min) · ${limited.detail}`);
  });

  it("after the reset, says so rather than pretending the agent works", () => {
    const passed = record({
      ...limited,
      limit: { ...(limited.limit as NonNullable<SessionRecord["limit"]>), resets_at: "2026-12-07T10:25:00.000Z" },
    });
    const view = viewOfRecord(passed, { stale: false, reason: "" }, NOW, usageOf(passed, {}, NOW));
    expect(view.limit?.reset_passed).toBe(true);
    expect(view.status).toBe("error");
    expect(limitWhen(view.limit as NonNullable<typeof view.limit>, NOW)).toBe("limit reset 5 min ago");
  });

  it("without a stated reset says none was stated, unless the harness's words say when; a record not in error shows no limit", () => {
    const view = viewOfRecord(limited, { stale: false, reason: "" }, NOW, usageOf(limited, {}, NOW));
    expect(view.limit?.resets_at).toBeNull();
    // Claude's words name the reset: "no reset time stated" beside them would contradict them.
    expect(rowDetail(view, NOW)).toBe(limited.detail);
    const wordless = record({
      ...limited,
      limit: { ...(limited.limit as NonNullable<SessionRecord["limit"]>), message: "rate limit exceeded" },
    });
    expect(rowDetail(viewOfRecord(wordless, { stale: false, reason: "" }, NOW, usageOf(wordless, {}, NOW)), NOW)).toBe(
      "no reset time stated · rate limit exceeded",
    );
    expect(usageOf({ ...limited, status: "running" }, {}, NOW).limit).toBeNull();
  });
});

describe("model, context, tokens, quota", () => {
  it("nothing stated: null and empty, shown as —", () => {
    const view = viewOfRecord(record(), { stale: false, reason: "" }, NOW, usageOf(record(), {}, NOW));
    expect(view).toMatchObject({ limit: null, model: null, context: null, tokens: null, quota: [], compacting: false, subagents: [] });
    expect(contextCell(view.context)).toBe("—");
    expect(contextWords(view.context)).toBe("—");
  });

  it("the source that stated last wins; the window only where stated; the percent from stated numbers", () => {
    const transcript: UsageFacts = {
      model: { id: "claude-opus-5-5", at: "2026-12-07T10:10:00.000Z" },
      context: { used: 45_000, at: "2026-12-07T10:10:00.000Z" },
      tokens: { input: 10, output: 5, cache_read: 0, cache_write: 0, complete: true },
    };
    const fromTranscript = usageOf(record({ model: { id: "claude-sonnet-5", at: T0 } }), { transcript }, NOW);
    expect(fromTranscript).toMatchObject({ model: "claude-opus-5-5", context: { used: 45_000, window: null, percent: null } });
    expect(contextCell(fromTranscript.context)).toBe("45k");
    expect(contextWords(fromTranscript.context)).toBe("45k tokens (window not stated)");
    // A /model switch the status line states after the last reply.
    const statusline: UsageFacts = {
      model: { id: "claude-haiku-5", at: "2026-12-07T10:20:00.000Z" },
      context: { used: 45_000, window: 200_000, percent: 22, at: "2026-12-07T10:20:00.000Z" },
      windows: [{ name: "five_hour", used_percent: 92, resets_at: "2026-12-07T12:00:00.000Z", at: "2026-12-07T10:20:00.000Z" }],
    };
    const both = usageOf(record(), { transcript, statusline }, NOW);
    expect(both).toMatchObject({ model: "claude-haiku-5", context: { used: 45_000, window: 200_000, percent: 22 } });
    expect(contextCell(both.context)).toBe("22%");
    expect(both.quota).toEqual([{ window: "five_hour", used_percent: 92, resets_at: "2026-12-07T12:00:00.000Z", window_minutes: null }]);
    expect(quotaWords(both.quota[0] as (typeof both.quota)[number], NOW)).toBe("five_hour 92% used, resets 12:00 (in 1 h 30 min)");
  });

  it("Codex's windows are named by their length", () => {
    expect(quotaWords({ window: "secondary", used_percent: 40, resets_at: "2026-12-09T10:30:00.000Z", window_minutes: 10080 }, NOW)).toBe(
      "secondary (7 d) 40% used, resets Wed 10:30 (in 2 days)",
    );
  });

  it("compaction and subagents come from the record", () => {
    const busy = record({
      detail: "compacting",
      compacting: { since: T0, trigger: "manual", was: "idle" },
      subagents: [
        { id: "a1", type: "Explore", since: T0 },
        { id: "a2", type: "Plan", since: T0 },
      ],
    });
    const view = viewOfRecord(busy, { stale: false, reason: "" }, NOW, usageOf(busy, {}, NOW));
    expect(view).toMatchObject({ compacting: true, subagents: [{ id: "a1" }, { id: "a2" }] });
    expect(rowDetail(view, NOW)).toBe("2 subagents · compacting");
  });
});
