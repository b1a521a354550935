import { describe, expect, it } from "vitest";
import { chooseNext, sortByAttention } from "./attention.ts";
import type { SessionView } from "./view.ts";
import { formatStatus } from "../cli/status.ts";
import type { StatusCounts } from "./queries.ts";

const NOW = Date.parse("2026-11-29T12:00:00.000Z");
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();
const session = (id: string, status: SessionView["status"], changed: number): SessionView =>
  ({ id, status, status_changed_at: ago(changed), stale: false }) as unknown as SessionView;

describe("next", () => {
  const fleet = [
    session("run", "running", 1),
    session("wait-old", "waiting", 90),
    session("wait-new", "waiting", 10),
    session("done", "ended", 1),
  ];

  it("goes to the most urgent rank, newest change first, and cycles through equals", () => {
    expect(chooseNext(fleet, {}, undefined)?.id).toBe("wait-new");
    expect(chooseNext(fleet, {}, "wait-new")?.id).toBe("wait-old");
    expect(chooseNext(fleet, {}, "wait-old")?.id).toBe("wait-new");
    expect(chooseNext(fleet, {}, "something-gone")?.id).toBe("wait-new");
  });

  it("treats an idle session the user has seen as less urgent than running ones, and never goes to ended ones", () => {
    const idle = [session("idle", "idle", 30), session("run", "running", 1)];
    expect(chooseNext(idle, {}, undefined)?.id).toBe("idle");
    expect(chooseNext(idle, { idle: ago(5) }, undefined)?.id).toBe("run");
    expect(chooseNext([session("done", "ended", 1)], {}, undefined)).toBeUndefined();
    expect(sortByAttention(idle, { idle: ago(5) }).map((s) => s.id)).toEqual(["run", "idle"]);
  });

  it("orders equals by the newest change, then by id, and leaves the caller's array as it was", () => {
    const equals = [
      session("b", "running", 5),
      session("c", "running", 5),
      session("a", "running", 5),
      session("z", "running", 1),
      session("w", "waiting", 99),
    ];
    expect(sortByAttention(equals, {}).map((s) => s.id)).toEqual(["w", "z", "a", "b", "c"]);
    expect(equals.map((s) => s.id)).toEqual(["b", "c", "a", "z", "w"]);
  });
});

describe("status formats", () => {
  const counts: StatusCounts = {
    waiting: 2,
    error: 1,
    "idle-unseen": 3,
    running: 4,
    started: 0,
    idle: 5,
    discovered: 0,
    ended: 0,
    limited: 0,
    total: 15,
  };
  it("tmux: coloured glyph counts, zeros left out", () => {
    expect(formatStatus(counts, "tmux")).toBe("#[fg=yellow,bold]●2 #[fg=red,bold]✖1 #[fg=green,bold]◆3 #[fg=cyan]▶4#[default]");
    expect(formatStatus({ ...counts, waiting: 0, error: 0, "idle-unseen": 0, running: 0 }, "tmux")).toBe("");
  });
  it("plain words: every live session counted under its own state", () => {
    expect(formatStatus(counts, "plain")).toBe("2 waiting, 1 error, 3 done, 4 running, 5 idle");
    const started = { ...counts, waiting: 0, error: 0, "idle-unseen": 0, running: 0, idle: 0, started: 2, total: 2 };
    expect(formatStatus(started, "plain")).toBe("2 started");
    expect(formatStatus({ ...counts, waiting: 0, error: 0, "idle-unseen": 0, running: 0, idle: 0, total: 0 }, "plain")).toBe("no agents");
  });
  it("limits: counted under error in the counts, shown apart (their own word and glyph)", () => {
    const limited = { ...counts, error: 3, limited: 2 };
    expect(formatStatus(limited, "plain")).toBe("2 waiting, 1 error, 2 limited, 3 done, 4 running, 5 idle");
    expect(formatStatus(limited, "tmux")).toBe(
      "#[fg=yellow,bold]●2 #[fg=red,bold]✖1 #[fg=red]⧖2 #[fg=green,bold]◆3 #[fg=cyan]▶4#[default]",
    );
    expect(formatStatus({ ...limited, error: 2 }, "plain")).toBe("2 waiting, 2 limited, 3 done, 4 running, 5 idle");
  });
});
