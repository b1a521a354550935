import { describe, expect, it } from "vitest";
import { composeNotice, type NoticeInput } from "./message.ts";

const input = (dir: string, status: NoticeInput["status"], detail = ""): NoticeInput => ({
  id: `fleet:v1:claude:${dir}`,
  harnessName: "Claude Code",
  cwd: `/src/${dir}`,
  status,
  detail,
  where: `tmux %1 (${dir}:0)`,
});

describe("composeNotice", () => {
  it("one session: who, what, where; urgency by state", () => {
    expect(composeNotice([input("api", "waiting", "permission: Bash")])).toEqual({
      title: "Claude Code needs you: api",
      lines: ["permission: Bash", "tmux %1 (api:0)"],
      oneLine: "Claude Code needs you: api: permission: Bash",
      urgency: "critical",
      sessions: [
        {
          id: "fleet:v1:claude:api",
          label: "api (Claude Code)",
          facts: { agent: "Claude Code", state: "waiting", detail: "permission: Bash", directory: "/src/api" },
        },
      ],
    });
    expect(composeNotice([input("api", "error")])).toMatchObject({
      title: "Claude Code failed: api",
      lines: ["the turn failed", "tmux %1 (api:0)"],
      urgency: "normal",
    });
    expect(composeNotice([input("api", "idle", "Done: 3 files changed")])).toMatchObject({
      title: "Claude Code finished: api",
      urgency: "low",
    });
  });

  it("several sessions: one notice that names each, the most urgent level", () => {
    const notice = composeNotice([input("api", "waiting", "permission: Bash"), input("web", "idle"), input("cli", "error")]);
    expect(notice.title).toBe("3 agents need you");
    expect(notice.lines).toEqual([
      "api (Claude Code) waiting: permission: Bash",
      "web (Claude Code) idle: the turn is done",
      "cli (Claude Code) error: the turn failed",
    ]);
    expect(notice.urgency).toBe("critical");
    expect(notice.sessions.map((session) => session.label)).toEqual(["api (Claude Code)", "web (Claude Code)", "cli (Claude Code)"]);
    expect(composeNotice([input("a", "idle"), input("b", "idle")]).title).toBe("2 agents finished");
  });

  it("many sessions: at most six lines, the rest counted", () => {
    const notice = composeNotice(Array.from({ length: 9 }, (_, index) => input(`d${index}`, "waiting")));
    expect(notice.lines).toHaveLength(6);
    expect(notice.lines.at(-1)).toBe("and 4 more");
    expect(notice.sessions).toHaveLength(9);
  });

  it("agent text is cleaned before it is composed", () => {
    const notice = composeNotice([input("evil\x1b]0;x\x07dir", "waiting", "\x9b31mred\n\nline")]);
    expect(notice.title).toBe("Claude Code needs you: evil\\u001b]0;x\\u0007dir");
    expect(notice.lines[0]).toBe("\\u009b31mred line");
  });
});
