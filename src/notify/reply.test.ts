// handleReply with a recorded answer service and desktop channel: the request it makes, and the follow-up it shows.
import { describe, expect, it } from "vitest";
import type { AnswerFailure, Answered } from "../answer/service.ts";
import type { Notice, NotifyChannel } from "./contract.ts";
import { handleReply, type Answer } from "./reply.ts";
import { testWorld } from "../../test/notify-world.ts";

const chosen = { kind: "reply", sessionId: "fleet:v1:claude:aa", wait: "9c41d0e2aa17", reply: "allow" } as const;

const answered = (closed: boolean): Answered => ({
  ok: true,
  session: chosen.sessionId,
  wait: chosen.wait,
  channel: "keys",
  target: "tmux pane %5 (work:2)",
  reply: "allow",
  option: { number: 1, label: "Yes", reply: "allow" },
  keys: ["1"],
  closed,
});

function recorder(result: Answered | AnswerFailure) {
  const asked: unknown[] = [];
  const shown: Notice[] = [];
  const answer: Answer = async (request, reply) => {
    asked.push({ request, reply });
    return result;
  };
  const desktop = {
    id: "desktop",
    detect: async () => ({ channel: "desktop", available: true, detail: "" }),
    deliver: async (notice: Notice) => {
      shown.push(notice);
      return { channel: "desktop", outcome: "delivered", detail: "shown" };
    },
  } satisfies NotifyChannel;
  return { asked, shown, answer, desktop };
}

describe("a notification's Allow / Deny", () => {
  it("answers that wait of that session, from a notification; nothing more when the dialog closed", async () => {
    const { asked, shown, answer, desktop } = recorder(answered(true));
    const handled = await handleReply(chosen, testWorld().world, desktop, answer);
    expect(asked).toEqual([
      { request: { query: "fleet:v1:claude:aa", waitId: "9c41d0e2aa17", by: "a notification" }, reply: { kind: "allow" } },
    ]);
    expect(handled).toEqual({ result: answered(true) });
    expect(shown).toEqual([]);
  });

  it("follows up with why nothing was sent, or that the dialog still shows", async () => {
    const refused: AnswerFailure = {
      ok: false,
      reason: "wait-moved",
      detail: "the wait 9c41d0e2aa17 is no longer open: aa now waits for permission: Bash (wait 111111111111); nothing sent",
    };
    const first = recorder(refused);
    expect(await handleReply({ ...chosen, reply: "deny" }, testWorld().world, first.desktop, first.answer)).toMatchObject({
      result: refused,
      followUp: "delivered: shown",
    });
    expect(first.asked).toEqual([expect.objectContaining({ reply: { kind: "deny" } })]);
    expect(first.shown).toEqual([expect.objectContaining({ title: "tongs-agents did not answer", lines: [refused.detail], sessions: [] })]);
    const second = recorder(answered(false));
    await handleReply(chosen, testWorld().world, second.desktop, second.answer);
    expect(second.shown).toEqual([
      expect.objectContaining({
        title: "tongs-agents answered, but the dialog still shows",
        lines: ["answered allow: pressed 1 (Yes) in tmux pane %5 (work:2); the dialog still shows: look at the pane"],
      }),
    ]);
  });
});
