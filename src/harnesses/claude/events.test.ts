// Claude Code 2.1.332's own payloads for a compaction and a usage limit (fixtures/, captured live on this project's
// synthetic provider: `/compact` in `claude -p --resume`, then a prompt the provider answers with Anthropic's 429 and
// the unified rate-limit headers of a subscription; paths rewritten), through the event table and the store.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayRecords } from "../../../test/native-sequence.ts";
import { CLAUDE_HOOKS } from "./install.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const replay = (...names: string[]) =>
  replayRecords("claude", FIXTURES, CLAUDE_HOOKS, names).map((shown) => {
    if (shown.kind === "ignored") return shown;
    const { status, detail, compacting, subagents, model, limit } = shown.record;
    return { status, detail, compacting: compacting?.trigger, subagents: subagents?.length ?? 0, model: model?.id, limit };
  });

describe("Claude Code's events", () => {
  it("/compact: compacting from PreCompact through the SessionStart it fires midway to PostCompact, then at the prompt", () => {
    // The two SubagentStop without a start are the compaction's own helpers: they change nothing.
    expect(replay("PreCompact", "SubagentStop-compact", "SessionStart-compact", "PostCompact")).toEqual([
      { status: "running", detail: "compacting", compacting: "manual", subagents: 0, model: undefined, limit: undefined },
      { status: "running", detail: "compacting", compacting: "manual", subagents: 0, model: undefined, limit: undefined },
      { status: "running", detail: "compacting", compacting: "manual", subagents: 0, model: "claude-sonnet-5-5", limit: undefined },
      { status: "idle", detail: "compacted", compacting: undefined, subagents: 0, model: "claude-sonnet-5-5", limit: undefined },
    ]);
  });

  it("StopFailure rate_limit: an error that is a limit, in Claude Code's own words (the reset only as text here)", () => {
    const words = "You've hit your 5-hour limit · resets 2:42am (UTC)";
    expect(replay("StopFailure-rate_limit").at(-1)).toEqual({
      status: "error",
      detail: words,
      compacting: undefined,
      subagents: 0,
      model: undefined,
      limit: { kind: "rate_limit", stated: "rate_limit", message: words },
    });
  });
});
